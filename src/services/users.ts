import type { Db, Trx } from '../db/database.js';
import type { Channels } from '../domain/channels.js';
import { applyOperations, applyUpsert, sameState, type EntityState } from '../domain/entity-operations.js';
import { notFoundErrors } from '../errors.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import {
  createAndLockUsers,
  deleteUsers as deleteUserRows,
  findUserByDistinctId,
  listUsers as listUserRows,
  lockUsers,
  saveUserStates,
  type UserRow,
} from '../repositories/users.js';
import type { CursorQuery } from '../schemas/cursor.js';

/** One change to one user: a pure function of the user's state (see domain/entity-operations.ts). */
export interface UserChange {
  distinctId: string;
  apply: (state: EntityState) => EntityState;
}

const stateOf = (row: UserRow): EntityState => ({ properties: row.properties, channels: row.channels as Channels });

/**
 * Applies changes to users inside the caller's transaction, in a fixed number of statements
 * whatever the number of users: lock (creating missing users when `create`), apply in order,
 * write back only the users that changed. Concurrent edits of one user queue on its row lock,
 * so none is lost. Returns every touched user as it now is, by distinct_id.
 */
export async function changeUsers(
  trx: Trx,
  workspaceId: number,
  changes: UserChange[],
  options: { create: boolean },
): Promise<Map<string, UserRow>> {
  const ids = [...new Set(changes.map((change) => change.distinctId))];
  if (ids.length === 0) return new Map();
  const rows: (UserRow & { inserted?: boolean })[] = options.create
    ? await createAndLockUsers(trx, workspaceId, ids)
    : await lockUsers(trx, workspaceId, ids);
  const users = new Map<string, UserRow & { inserted?: boolean }>(rows.map((row) => [row.distinct_id, row]));
  const missing = ids.find((id) => !users.has(id));
  if (missing !== undefined) throw notFoundErrors.user(missing);

  const before = new Map(rows.map((row) => [row.distinct_id, stateOf(row)]));
  const after = new Map(before);
  for (const change of changes) after.set(change.distinctId, change.apply(after.get(change.distinctId)!));
  const changed = [...after].filter(([id, state]) => !sameState(before.get(id)!, state));
  const saved = await saveUserStates(
    trx,
    changed.map(([id, state]) => {
      const row = users.get(id)!;
      return { id: row.id, fresh: row.inserted === true, properties: state.properties, channels: state.channels };
    }),
  );
  for (const row of saved) users.set(row.distinct_id, row);
  return users;
}

export const listUsers = (db: Db, workspaceId: number, query: CursorQuery & { distinct_id_prefix?: string }) =>
  listUserRows(db, workspaceId, cursorWindow(query), query.distinct_id_prefix);

export async function getUser(db: Db, workspaceId: number, distinctId: string) {
  const user = await findUserByDistinctId(db, workspaceId, distinctId);
  if (!user) throw notFoundErrors.user(distinctId);
  return user;
}

/** A flat upsert body: channel keys add entries, other keys set properties; an unknown user is created. */
export async function upsertUser(trx: Trx, workspaceId: number, distinctId: string, body: Record<string, unknown>) {
  const users = await changeUsers(trx, workspaceId, [{ distinctId, apply: (s) => applyUpsert(s, body) }], {
    create: true,
  });
  return users.get(distinctId)!;
}

export async function editUser(trx: Trx, workspaceId: number, distinctId: string, operations: unknown[]) {
  const change = { distinctId, apply: (s: EntityState) => applyOperations(s, operations, 'operations') };
  const users = await changeUsers(trx, workspaceId, [change], { create: false });
  return users.get(distinctId)!;
}

export async function deleteUser(db: Db, workspaceId: number, distinctId: string) {
  if ((await deleteUserRows(db, workspaceId, [distinctId])) === 0) throw notFoundErrors.user(distinctId);
}

/** distinct_ids that name no user are skipped. */
export const deleteUsers = (db: Db, workspaceId: number, distinctIds: string[]) =>
  deleteUserRows(db, workspaceId, distinctIds);
