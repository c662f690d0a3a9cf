import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

export const DEFAULT_TENANT_ID = 'default';

export const TENANT_COLUMNS = [
  'tenant_id',
  'tenant_name',
  'settings',
  'properties',
  'created_at',
  'updated_at',
] as const;

export function insertDefaultTenant(db: Db, workspaceId: number, workspaceName: string) {
  return db
    .insertInto('tenants')
    .values({ workspace_id: workspaceId, tenant_id: DEFAULT_TENANT_ID, tenant_name: workspaceName })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Creates or updates in one statement: given settings replace, properties merge at the first level. */
export function upsertTenant(
  db: Db,
  workspaceId: number,
  input: {
    tenantId: string;
    tenantName?: string;
    settings: Record<string, unknown>;
    properties: Record<string, unknown>;
  },
) {
  const settings = JSON.stringify(input.settings);
  const properties = JSON.stringify(input.properties);
  return db
    .insertInto('tenants')
    .values({
      workspace_id: workspaceId,
      tenant_id: input.tenantId,
      tenant_name: input.tenantName ?? input.tenantId,
      settings,
      properties,
    })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'tenant_id']).doUpdateSet({
        tenant_name: input.tenantName ?? sql<string>`tenants.tenant_name`,
        settings: sql`tenants.settings || ${settings}::jsonb`,
        properties: sql`tenants.properties || ${properties}::jsonb`,
        updated_at: sql`greatest(clock_timestamp(), tenants.updated_at + interval '1 millisecond')`,
      }),
    )
    .returning(TENANT_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function findTenant(db: Db, workspaceId: number, tenantId: string) {
  return db
    .selectFrom('tenants')
    .select(TENANT_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
}

/**
 * Whether the tenant exists, key-share locked until the transaction ends: a racing deletion of the
 * tenant waits, so rows that reference it can be written safely (it is taken before any user lock).
 */
export async function lockTenantKey(trx: Trx, workspaceId: number, tenantId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('tenants')
    .select('tenant_id')
    .where('workspace_id', '=', workspaceId)
    .where('tenant_id', '=', tenantId)
    .forKeyShare()
    .executeTakeFirst();
  return row !== undefined;
}

export async function listTenants(db: Db, workspaceId: number, page: { limit: number; offset: number }) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('tenants')
      .select(TENANT_COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('tenant_id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('tenants')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export async function deleteTenant(db: Db, workspaceId: number, tenantId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('tenants')
    .where('workspace_id', '=', workspaceId)
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
