import type { Static } from '@sinclair/typebox';
import { iso } from '../schemas/common.js';
import type { TenantSchema } from '../schemas/tenants.js';

interface TenantRow {
  tenant_id: string;
  tenant_name: string;
  settings: Record<string, unknown>;
  properties: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export function presentTenant(row: TenantRow): Static<typeof TenantSchema> {
  const setting = <T>(key: string, fallback: T) => (row.settings[key] ?? fallback) as T;
  return {
    tenant_id: row.tenant_id,
    tenant_name: row.tenant_name,
    logo: setting('logo', null),
    timezone: setting('timezone', null),
    blocked_channels: setting('blocked_channels', []),
    embedded_preference_url: setting('embedded_preference_url', null),
    hosted_preference_domain: setting('hosted_preference_domain', null),
    primary_color: setting('primary_color', null),
    secondary_color: setting('secondary_color', null),
    tertiary_color: setting('tertiary_color', null),
    social_links: setting('social_links', {}),
    properties: row.properties,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
