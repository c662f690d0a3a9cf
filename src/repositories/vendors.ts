import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
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

export function findVendor(db: Db, workspaceId: number, id: string, options: { lock?: boolean } = {}) {
  let query = db.selectFrom('vendors').select(COLUMNS).where('workspace_id', '=', workspaceId).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** The vendor each channel delivers through first: the default active one, else the first by priority (then age). */
export async function findActiveVendors(db: Db, workspaceId: number) {
  const rows = await db
    .selectFrom('vendors')
    .select(['id', 'channel', 'provider', 'nickname'])
    .where('workspace_id', '=', workspaceId)
    .where('is_active', '=', true)
    .orderBy('is_default', 'desc')
    .orderBy('priority')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const byChannel = new Map<string, { id: string; provider: string; nickname: string | null }>();
  for (const row of rows) if (!byChannel.has(row.channel)) byChannel.set(row.channel, row);
  return byChannel;
}

/**
 * The vendors of a channel, in the order a delivery tries them (docs/channels.md, "Failover"): the active ones, the
 * default first, then by `priority` (lower first), then the oldest.
 */
export function findChannelVendors(db: Db, workspaceId: number, channel: string) {
  return db
    .selectFrom('vendors')
    .select(COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('channel', '=', channel)
    .where('is_active', '=', true)
    .orderBy('is_default', 'desc')
    .orderBy('priority')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Before a vendor becomes its channel's default, the previous default stops being one. */
export async function clearDefault(trx: Db, workspaceId: number, channel: string, exceptId: string) {
  await trx
    .updateTable('vendors')
    .set({ is_default: false, updated_at: sql`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('channel', '=', channel)
    .where('is_default', '=', true)
    .where('id', '!=', exceptId)
    .execute();
}

export function insertVendor(
  trx: Db,
  vendor: Omit<VendorRow, 'created_at' | 'updated_at' | 'priority' | 'fallback_after_seconds'> &
    Partial<Pick<VendorRow, 'priority' | 'fallback_after_seconds'>>,
) {
  return trx
    .insertInto('vendors')
    .values({ ...vendor, config: JSON.stringify(vendor.config) })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export function updateVendor(
  trx: Db,
  workspaceId: number,
  id: string,
  changes: Partial<
    Pick<VendorRow, 'nickname' | 'is_default' | 'is_active' | 'priority' | 'fallback_after_seconds' | 'config'>
  >,
) {
  return trx
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
