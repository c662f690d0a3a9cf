import type { Db } from '../db/database.js';
import { changeCredentials, type CredentialCache } from './credential-changes.js';
import { tenantsTag } from '../domain/credential-tags.js';
import { isTimeZone } from '../domain/entity-operations.js';
import { badRequest, notFoundErrors } from '../errors.js';
import {
  DEFAULT_TENANT_ID,
  deleteTenant as deleteTenantRow,
  findTenant,
  listTenants as listTenantRows,
  upsertTenant as upsertTenantRow,
} from '../repositories/tenants.js';
import { SETTINGS_KEYS, type TenantUpsertBody } from '../schemas/tenants.js';

/** Creates or updates a tenant: settings are the body's known keys, properties merge at the first level. */
export function upsertTenant(db: Db, workspaceId: number, tenantId: string, body: TenantUpsertBody) {
  const { tenant_name, properties, ...rest } = body;
  if (typeof rest.timezone === 'string' && !isTimeZone(rest.timezone)) {
    throw badRequest(`timezone: '${rest.timezone}' is not an IANA time zone name`, {
      timezone: 'is not an IANA time zone name',
    });
  }
  const settings = Object.fromEntries(SETTINGS_KEYS.filter((key) => key in rest).map((key) => [key, rest[key]]));
  return upsertTenantRow(db, workspaceId, {
    tenantId,
    tenantName: tenant_name,
    settings,
    properties: properties ?? {},
  });
}

/** The tenant, or undefined (brands answer their own 404). */
export const lookUpTenant = (db: Db, workspaceId: number, tenantId: string) => findTenant(db, workspaceId, tenantId);

export async function getTenant(db: Db, workspaceId: number, tenantId: string) {
  const row = await findTenant(db, workspaceId, tenantId);
  if (!row) throw notFoundErrors.tenant(tenantId);
  return row;
}

export const listTenants = (db: Db, workspaceId: number, page: { limit: number; offset: number }) =>
  listTenantRows(db, workspaceId, page);

/**
 * Every workspace keeps its default tenant. The deletion is announced with its commit: triggers naming
 * the tenant are refused from the next request on, in every instance (src/engine/intake.ts).
 */
export async function deleteTenant(db: Db, cache: CredentialCache | undefined, workspaceId: number, tenantId: string) {
  if (tenantId === DEFAULT_TENANT_ID)
    throw badRequest(`tenant '${DEFAULT_TENANT_ID}' cannot be deleted`, { tenant_id: 'is the default tenant' });
  const deleted = await changeCredentials(db, cache, async (trx) => {
    const found = await deleteTenantRow(trx, workspaceId, tenantId);
    return { value: found, changed: found ? [tenantsTag(workspaceId)] : [] };
  });
  if (!deleted) throw notFoundErrors.tenant(tenantId);
}
