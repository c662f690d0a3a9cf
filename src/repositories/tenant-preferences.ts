import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { TenantCategoryOverride, TenantOverlay } from '../domain/tenant-preferences.js';

export type TenantCategoryRow = TenantCategoryOverride & { category: string };

const OVERRIDE_COLUMNS = [
  'category',
  'preference',
  'visible_to_subscriber',
  'mandatory_channels',
  'opt_in_channels',
  'blocked_channels',
  'updated_at',
] as const;

type OverlayRow = { blocked: string[] | null; overrides: (TenantCategoryRow & { updated_at: string })[] };

const overlaySelect = sql`select t.settings -> 'blocked_channels' as blocked,
  coalesce((select jsonb_agg(to_jsonb(p) - 'workspace_id' - 'tenant_id') from tenant_category_preferences p
    where p.workspace_id = t.workspace_id and p.tenant_id = t.tenant_id), '[]'::jsonb) as overrides
  from tenants t`;

function toOverlay(row: OverlayRow | undefined): TenantOverlay | undefined {
  if (!row) return undefined;
  return {
    blockedChannels: new Set(Array.isArray(row.blocked) ? row.blocked : []),
    categories: new Map(
      row.overrides.map((override) => [override.category, { ...override, updated_at: new Date(override.updated_at) }]),
    ),
  };
}

/**
 * What a tenant says about preferences, in one statement: its blocked channels (tenant settings)
 * and its category overrides. Undefined when the tenant does not exist.
 */
export async function findTenantOverlay(db: Db, workspaceId: number, tenantId: string) {
  const { rows } = await sql<OverlayRow>`${overlaySelect}
    where t.workspace_id = ${workspaceId} and t.tenant_id = ${tenantId}`.execute(db);
  return toOverlay(rows[0]);
}

/** The same, for the tenant of that id in the user's workspace. */
export async function findTenantOverlayOfUser(db: Db, userId: number, tenantId: string) {
  const { rows } = await sql<OverlayRow>`${overlaySelect}
    where t.workspace_id = (select workspace_id from users where id = ${userId}) and t.tenant_id = ${tenantId}`.execute(
    db,
  );
  return toOverlay(rows[0]);
}

export type TenantCategoryChange = Partial<Omit<TenantCategoryOverride, 'updated_at'>>;

/** Sets the fields the change names (the others are kept, or null for a new row) and returns the row. One statement. */
export function upsertTenantCategory(
  db: Db,
  workspaceId: number,
  tenantId: string,
  category: string,
  change: TenantCategoryChange,
) {
  const json = (value: string[] | null | undefined) =>
    value === undefined || value === null ? null : JSON.stringify(value);
  const values = {
    preference: change.preference ?? null,
    visible_to_subscriber: change.visible_to_subscriber ?? null,
    mandatory_channels: json(change.mandatory_channels),
    opt_in_channels: json(change.opt_in_channels),
    blocked_channels: json(change.blocked_channels),
  };
  const named = (Object.keys(values) as (keyof typeof values)[]).filter((key) => change[key] !== undefined);
  return db
    .insertInto('tenant_category_preferences')
    .values({ workspace_id: workspaceId, tenant_id: tenantId, category, ...values })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'tenant_id', 'category']).doUpdateSet((eb) => ({
        ...Object.fromEntries(named.map((key) => [key, eb.ref(`excluded.${key}`)])),
        updated_at: sql`greatest(clock_timestamp(), tenant_category_preferences.updated_at + interval '1 millisecond')`,
      })),
    )
    .returning(OVERRIDE_COLUMNS)
    .executeTakeFirstOrThrow() as Promise<TenantCategoryRow>;
}
