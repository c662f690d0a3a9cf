import { maskConfig } from '../domain/vendor-secrets.js';
import type { VendorRow } from '../repositories/vendors.js';
import { iso } from '../schemas/common.js';

/** A vendor as every read shows it: secrets masked, never the stored ciphertext. */
export const presentVendor = (row: VendorRow) => ({
  id: row.id,
  channel: row.channel,
  provider: row.provider,
  nickname: row.nickname,
  is_default: row.is_default,
  is_active: row.is_active,
  priority: row.priority,
  fallback_after_seconds: row.fallback_after_seconds,
  config: maskConfig(row.provider, row.config),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});
