import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import { reusableQuery } from '../db/reusable-query.js';
import { anyText } from '../db/json-lists.js';
import { saveStates, type StateWrite } from './entity-states.js';
import { beyondWindow, cursorPage, windowOrder, withinWindow, type CursorWindow } from './cursor-page.js';

export const USER_COLUMNS = ['id', 'distinct_id', 'properties', 'channels', 'created_at', 'updated_at'] as const;

export interface UserRow {
  id: number;
  distinct_id: string;
  properties: Record<string, unknown>;
  channels: Record<string, unknown[]>;
  created_at: Date;
  updated_at: Date;
}

const selectUserByDistinctId = reusableQuery(
  (db, workspaceId: number, distinctId: string) =>
    db
      .selectFrom('users')
      .select(USER_COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('distinct_id', '=', distinctId),
  [-1, '\u0000placeholder'],
);

export async function findUserByDistinctId(db: Db, workspaceId: number, distinctId: string) {
  return (await selectUserByDistinctId(db, workspaceId, distinctId))[0];
}

/** The named users of a workspace (unlocked); absent ones are missing from the result. One statement. */
export function findUsersByDistinctIds(db: Db, workspaceId: number, distinctIds: string[]): Promise<UserRow[]> {
  if (distinctIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('distinct_id', '=', anyText(distinctIds))
    .execute();
}

/**
 * Locks the named users for update. Every path locks users in distinct_id order (the database's
 * collation), so concurrent batches, edits and deletions never deadlock on them.
 * Users that do not exist are absent from the result. One statement.
 */
export function lockUsers(trx: Trx, workspaceId: number, distinctIds: string[]): Promise<UserRow[]> {
  return trx
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('distinct_id', '=', anyText(distinctIds))
    .orderBy('distinct_id')
    .forUpdate()
    .execute();
}

/**
 * Creates the named users that do not exist yet and locks all of them, in one statement: the
 * no-op DO UPDATE both returns and locks users that already existed. `inserted` tells them apart.
 */
export function createAndLockUsers(
  trx: Trx,
  workspaceId: number,
  distinctIds: string[],
): Promise<(UserRow & { inserted: boolean })[]> {
  const unique = [...new Set(distinctIds)];
  return trx
    .insertInto('users')
    .columns(['workspace_id', 'distinct_id'])
    .expression(
      sql`select ${workspaceId}::integer, value from jsonb_array_elements_text(${JSON.stringify(unique)}::jsonb) as ids(value) order by value`,
    )
    .onConflict((oc) => oc.columns(['workspace_id', 'distinct_id']).doUpdateSet({ updated_at: sql`users.updated_at` }))
    .returning([...USER_COLUMNS, sql<boolean>`xmax = 0`.as('inserted')])
    .execute();
}

/** Writes new user states back in one statement (see saveStates). */
export const saveUserStates = (trx: Trx, states: StateWrite[]) =>
  saveStates<UserRow>(trx, 'users', USER_COLUMNS, states);

/** Deletes users (their subscriptions and other dependent rows cascade), locking them in distinct_id order first. */
export async function deleteUsers(db: Db, workspaceId: number, distinctIds: string[]): Promise<number> {
  const result = await db
    .deleteFrom('users')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('users')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('distinct_id', '=', anyText(distinctIds))
        .orderBy('distinct_id')
        .forUpdate(),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One page of a workspace's users, oldest first. */
/** A page of the workspace's users; `prefix`: only those whose distinct_id starts with it (the console's search). */
export async function listUsers(db: Db, workspaceId: number, window: CursorWindow, prefix?: string) {
  const pattern = prefix === undefined ? undefined : `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const users = () => {
    const base = db.selectFrom('users').where('workspace_id', '=', workspaceId);
    return pattern === undefined ? base : base.where('distinct_id', 'like', pattern);
  };
  const [rows, totals] = await Promise.all([
    users()
      .select(USER_COLUMNS)
      .where(withinWindow('id', window))
      .orderBy('id', windowOrder(window))
      .limit(window.limit + 1)
      .execute(),
    users()
      .select((eb) => [eb.fn.countAll<number>().as('count'), beyondWindow('id', window).as('beyond')])
      .executeTakeFirstOrThrow(),
  ]);
  return cursorPage(rows, (row) => row.id, window, totals);
}
