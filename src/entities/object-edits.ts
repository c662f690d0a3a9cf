import type { Db } from '../db/database.js';
import { notFound } from '../errors.js';
import { createAndLockObject, lockObject, saveObjectStates, type ObjectRef, type ObjectRow } from '../repositories/objects.js';
import { objectLabel } from '../schemas/objects.js';
import type { Channels } from './channels.js';
import { sameState, type EntityState } from './operations.js';

export const objectNotFound = (ref: ObjectRef) => notFound(`object '${objectLabel(ref)}' not found`);

export const objectState = (row: ObjectRow): EntityState => ({ properties: row.properties, channels: row.channels as Channels });

/**
 * Applies a change to one object inside the caller's transaction: lock it (creating it when
 * `create`), apply the pure operations, write back only when something changed.
 */
export async function changeObject(trx: Db, workspaceId: number, ref: ObjectRef, apply: (state: EntityState) => EntityState, options: { create: boolean }): Promise<ObjectRow> {
  const row: (ObjectRow & { inserted?: boolean }) | undefined = options.create ? await createAndLockObject(trx, workspaceId, ref) : await lockObject(trx, workspaceId, ref);
  if (!row) throw objectNotFound(ref);
  const before = objectState(row);
  const after = apply(before);
  if (sameState(before, after)) return row;
  const [saved] = await saveObjectStates(trx, [{ id: row.id, fresh: row.inserted === true, properties: after.properties, channels: after.channels }]);
  return saved!;
}
