import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { Db, LockOption } from '../db/database.js';
import type { Database } from '../db/types.js';
import type { VendorsTable } from '../db/engine-types.js';

export type VendorRow = Selectable<VendorsTable>;

const COLUMNS = [
  'id',
  'workspace_id',
  'channel',
  'provider',
  'nickname',
  'is_default',
  'is_active',
  'priority',
  'fallback_after_seconds',
  'config',
  'created_at',
  'updated_at',
] as const;

export function listVendors(db: Db, workspaceId: number) {
  return db
    .selectFrom('vendors')
    .select(COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function findVendor<H extends Db>(db: H, workspaceId: number, id: string, options: LockOption<H> = {}) {
  let query = db.selectFrom('vendors').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * The rule that orders a channel's vendors (docs/engine.md, "Deliveries"; docs/channels.md, "Failover"): the
 * active ones, the default first, then by `priority` (lower first), then the oldest, ties by id. Both readers below
 * go through it: the one home of "which vendor sends on this channel".
 */
const inChoiceOrder = <Q extends SelectQueryBuilder<Database, 'vendors', object>>(query: Q): Q =>
  query
    .where('is_active', '=', true)
    .orderBy('is_default', 'desc')
    .orderBy('priority')
    .orderBy('created_at')
    .orderBy('id') as Q;

/** The vendor each channel delivers through first (a run step's delivery decision reads them at once), by channel. */
export async function findActiveVendors(db: Db, workspaceId: number) {
  const rows = await inChoiceOrder(
    db.selectFrom('vendors').select(['id', 'channel', 'provider', 'nickname']).where('workspace_id', '=', workspaceId),
  ).execute();
  const byChannel = new Map<string, { id: string; provider: string; nickname: string | null }>();
  for (const row of rows) if (!byChannel.has(row.channel)) byChannel.set(row.channel, row);
  return byChannel;
}

/** The vendors of a channel (whole rows), in the order a delivery tries them: one statement. */
export function findChannelVendors(db: Db, workspaceId: number, channel: string) {
  return inChoiceOrder(
    db.selectFrom('vendors').select(COLUMNS).where('workspace_id', '=', workspaceId).where('channel', '=', channel),
  ).execute();
}

/** Before a vendor becomes its channel's default, the previous default stops being one. */
export async function clearDefault(db: Db, workspaceId: number, channel: string, exceptId: string) {
  await db
    .updateTable('vendors')
    .set({ is_default: false, updated_at: sql`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('channel', '=', channel)
    .where('is_default', '=', true)
    .where('id', '!=', exceptId)
    .execute();
}

export function insertVendor(
  db: Db,
  vendor: Omit<VendorRow, 'created_at' | 'updated_at' | 'priority' | 'fallback_after_seconds'> &
    Partial<Pick<VendorRow, 'priority' | 'fallback_after_seconds'>>,
) {
  return db
    .insertInto('vendors')
    .values({ ...vendor, config: JSON.stringify(vendor.config) })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function updateVendor(
  db: Db,
  workspaceId: number,
  id: string,
  changes: Partial<
    Pick<VendorRow, 'nickname' | 'is_default' | 'is_active' | 'priority' | 'fallback_after_seconds' | 'config'>
  >,
) {
  return db
    .updateTable('vendors')
    .set({
      ...changes,
      ...(changes.config ? { config: JSON.stringify(changes.config) } : {}),
      updated_at: sql`now()`,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function deleteVendor(db: Db, workspaceId: number, id: string) {
  const row = await db
    .deleteFrom('vendors')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
