import type { Db } from '../db/database.js';
import { notFound } from '../errors.js';
import { createAndLockUsers, lockUsers, saveUserStates, type UserRow } from '../repositories/users.js';
import type { Channels } from './channels.js';
import { sameState, type EntityState } from './operations.js';

/** One change to one user: a pure function of the user's state (see operations.ts). */
export interface UserChange {
  distinctId: string;
  apply: (state: EntityState) => EntityState;
}

export const userNotFound = (distinctId: string) => notFound(`user [distinct_id: '${distinctId}'] not found`);

const stateOf = (row: UserRow): EntityState => ({ properties: row.properties, channels: row.channels as Channels });

/**
 * Applies changes to users inside the caller's transaction, in a fixed number of statements
 * whatever the number of users: lock (creating missing users when `create`), apply in order,
 * write back only the users that changed. Concurrent edits of one user queue on its row lock,
 * so none is lost. Returns every touched user as it now is, by distinct_id.
 */
export async function changeUsers(trx: Db, workspaceId: number, changes: UserChange[], options: { create: boolean }): Promise<Map<string, UserRow>> {
  const ids = [...new Set(changes.map((change) => change.distinctId))];
  if (ids.length === 0) return new Map();
  const rows: (UserRow & { inserted?: boolean })[] = options.create ? await createAndLockUsers(trx, workspaceId, ids) : await lockUsers(trx, workspaceId, ids);
  const users = new Map<string, UserRow & { inserted?: boolean }>(rows.map((row) => [row.distinct_id, row]));
  const missing = ids.find((id) => !users.has(id));
  if (missing !== undefined) throw userNotFound(missing);

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
