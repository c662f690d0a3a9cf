import type { ActorColumn } from '../db/types.js';
import { iso, isoOrNull } from '../schemas/common.js';

type DateValue = Date | string;

export function presentPublicKey(row: {
  id: string;
  api_key: string;
  name: string;
  allowed_domains: string[] | null;
  is_secure_mode_enabled: boolean;
  is_default: boolean;
  deleted_at: DateValue | null;
  created_at: DateValue;
  created_by: ActorColumn | null;
  rotated_at: DateValue | null;
  rotated_by: ActorColumn | null;
  updated_at: DateValue;
  updated_by: ActorColumn | null;
}) {
  return {
    id: row.id,
    api_key: row.api_key,
    name: row.name,
    allowed_domains: row.allowed_domains,
    is_secure_mode_enabled: row.is_secure_mode_enabled,
    is_deleted: row.deleted_at !== null,
    is_default: row.is_default,
    created_at: iso(row.created_at),
    created_by: row.created_by,
    rotated_at: isoOrNull(row.rotated_at),
    rotated_by: row.rotated_by,
    updated_at: iso(row.updated_at),
    updated_by: row.updated_by,
  };
}

export function presentSigningKey(row: {
  id: string;
  uid: string;
  status: string;
  created_at: DateValue;
  created_by: ActorColumn | null;
  rolled_at: DateValue | null;
  rolled_by: ActorColumn | null;
  deleted_at: DateValue | null;
  deleted_by: ActorColumn | null;
}) {
  return {
    id: row.id,
    uid: row.uid,
    status: row.status,
    allowed_domains: null,
    expiry_at: null,
    created_at: iso(row.created_at),
    created_by: row.created_by,
    rolled_at: isoOrNull(row.rolled_at),
    rolled_by: row.rolled_by,
    deleted_at: isoOrNull(row.deleted_at),
    deleted_by: row.deleted_by,
  };
}
