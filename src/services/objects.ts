import type { Db, Trx } from '../db/database.js';
import type { Channels } from '../domain/channels.js';
import { applyOperations, applyUpsert, sameState, type EntityState } from '../domain/entity-operations.js';
import { objectLabel } from '../domain/objects.js';
import { notFoundErrors } from '../errors.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import {
  createAndLockObject,
  deleteObjects as deleteObjectRows,
  findObject,
  listObjects as listObjectRows,
  lockObject,
  saveObjectStates,
  type ObjectRef,
  type ObjectRow,
} from '../repositories/objects.js';
import type { CursorQuery } from '../schemas/cursor.js';

export const objectNotFound = (ref: ObjectRef) => notFoundErrors.object(objectLabel(ref));

/** The object a route's `:object_type/:id` names, as the services take it. */
export const objectRefOf = (params: { object_type: string; id: string }): ObjectRef => ({
  objectType: params.object_type,
  objectId: params.id,
});

const objectState = (row: ObjectRow): EntityState => ({
  properties: row.properties,
  channels: row.channels as Channels,
});

/**
 * Applies a change to one object inside the caller's transaction: lock it (creating it when
 * `create`), apply the pure operations, write back only when something changed.
 */
export async function changeObject(
  trx: Trx,
  workspaceId: number,
  ref: ObjectRef,
  apply: (state: EntityState) => EntityState,
  options: { create: boolean },
): Promise<ObjectRow> {
  const row: (ObjectRow & { inserted?: boolean }) | undefined = options.create
    ? await createAndLockObject(trx, workspaceId, ref)
    : await lockObject(trx, workspaceId, ref);
  if (!row) throw objectNotFound(ref);
  const before = objectState(row);
  const after = apply(before);
  if (sameState(before, after)) return row;
  const [saved] = await saveObjectStates(trx, [
    { id: row.id, fresh: row.inserted === true, properties: after.properties, channels: after.channels },
  ]);
  return saved!;
}

export const listObjects = (db: Db, workspaceId: number, objectType: string, query: CursorQuery) =>
  listObjectRows(db, workspaceId, objectType, cursorWindow(query));

export async function getObject(db: Db, workspaceId: number, ref: ObjectRef) {
  const row = await findObject(db, workspaceId, ref);
  if (!row) throw objectNotFound(ref);
  return row;
}

export const upsertObject = (trx: Trx, workspaceId: number, ref: ObjectRef, body: Record<string, unknown>) =>
  changeObject(trx, workspaceId, ref, (state) => applyUpsert(state, body), { create: true });

export const editObject = (trx: Trx, workspaceId: number, ref: ObjectRef, operations: unknown[]) =>
  changeObject(trx, workspaceId, ref, (state) => applyOperations(state, operations, 'operations'), {
    create: false,
  });

export async function deleteObject(db: Db, workspaceId: number, ref: ObjectRef) {
  if ((await deleteObjectRows(db, workspaceId, ref.objectType, [ref.objectId])) === 0) throw objectNotFound(ref);
}

/** Ids that name no object are skipped. */
export const deleteObjects = (db: Db, workspaceId: number, objectType: string, objectIds: string[]) =>
  deleteObjectRows(db, workspaceId, objectType, objectIds);
