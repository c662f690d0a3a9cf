import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import { beyondWindow, cursorPage, windowOrder, withinWindow, type CursorWindow } from './cursor-page.js';
import { saveStates, type StateWrite } from './entity-states.js';

export const OBJECT_COLUMNS = [
  'id',
  'object_type',
  'object_id',
  'properties',
  'channels',
  'subscriptions_count',
  'created_at',
  'updated_at',
] as const;

export interface ObjectRow {
  id: number;
  object_type: string;
  object_id: string;
  properties: Record<string, unknown>;
  channels: Record<string, unknown[]>;
  subscriptions_count: number;
  created_at: Date;
  updated_at: Date;
}

/** How the API names an object: its type and the caller's id for it. */
export interface ObjectRef {
  objectType: string;
  objectId: string;
}

const objectByRef = (db: Db, workspaceId: number, ref: ObjectRef) =>
  db
    .selectFrom('objects')
    .select(OBJECT_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('object_type', '=', ref.objectType)
    .where('object_id', '=', ref.objectId);

export const findObject = (db: Db, workspaceId: number, ref: ObjectRef): Promise<ObjectRow | undefined> =>
  objectByRef(db, workspaceId, ref).executeTakeFirst();

/** The object, locked until the transaction ends (its key columns stay shareable for foreign keys). */
export const lockObject = (trx: Trx, workspaceId: number, ref: ObjectRef): Promise<ObjectRow | undefined> =>
  objectByRef(trx, workspaceId, ref).forNoKeyUpdate().executeTakeFirst();

/** Creates the object when missing and locks it, in one statement (the no-op DO UPDATE locks an existing one). */
export function createAndLockObject(
  trx: Trx,
  workspaceId: number,
  ref: ObjectRef,
): Promise<ObjectRow & { inserted: boolean }> {
  return trx
    .insertInto('objects')
    .values({ workspace_id: workspaceId, object_type: ref.objectType, object_id: ref.objectId })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'object_type', 'object_id']).doUpdateSet({ updated_at: sql`objects.updated_at` }),
    )
    .returning([...OBJECT_COLUMNS, sql<boolean>`xmax = 0`.as('inserted')])
    .executeTakeFirstOrThrow();
}

export const saveObjectStates = (trx: Trx, states: StateWrite[]) =>
  saveStates<ObjectRow>(trx, 'objects', OBJECT_COLUMNS, states);

/**
 * The named objects that exist, in one statement whatever the number of refs, share-locked (as a
 * foreign key check would) so that they cannot be deleted before the transaction ends.
 */
export function findObjects(db: Db, workspaceId: number, refs: ObjectRef[]): Promise<ObjectRow[]> {
  const pairs = JSON.stringify(refs.map((ref) => ({ t: ref.objectType, i: ref.objectId })));
  return db
    .selectFrom('objects')
    .select(OBJECT_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where(
      sql<boolean>`(object_type, object_id) in (select t, i from jsonb_to_recordset(${pairs}::jsonb) as r(t text, i text))`,
    )
    .orderBy('id')
    .forKeyShare()
    .execute();
}

/** findObjects for refs of several workspaces (a batch of trigger jobs), in one statement. */
export function findObjectsOf(
  db: Db,
  refs: (ObjectRef & { workspaceId: number })[],
): Promise<(ObjectRow & { workspace_id: number })[]> {
  const triples = JSON.stringify(refs.map((ref) => ({ w: ref.workspaceId, t: ref.objectType, i: ref.objectId })));
  return db
    .selectFrom('objects')
    .select([...OBJECT_COLUMNS, 'workspace_id'])
    .where(
      sql<boolean>`(workspace_id, object_type, object_id) in (select w, t, i from jsonb_to_recordset(${triples}::jsonb) as r(w bigint, t text, i text))`,
    )
    .orderBy('id')
    .forKeyShare()
    .execute();
}

/** Deletes objects (their subscriptions both ways cascade), locking them in id order first. */
export async function deleteObjects(
  db: Db,
  workspaceId: number,
  objectType: string,
  objectIds: string[],
): Promise<number> {
  const ids = sql<string>`(select value from jsonb_array_elements_text(${JSON.stringify(objectIds)}::jsonb))`;
  const result = await db
    .deleteFrom('objects')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('objects')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .where('object_type', '=', objectType)
        .where('object_id', 'in', ids)
        .orderBy('id')
        .forUpdate(),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One page of a workspace's objects of one type, oldest first. */
export async function listObjects(db: Db, workspaceId: number, objectType: string, window: CursorWindow) {
  const [rows, totals] = await Promise.all([
    db
      .selectFrom('objects')
      .select(OBJECT_COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('object_type', '=', objectType)
      .where(withinWindow('id', window))
      .orderBy('id', windowOrder(window))
      .limit(window.limit + 1)
      .execute(),
    db
      .selectFrom('objects')
      .select((eb) => [eb.fn.countAll<number>().as('count'), beyondWindow('id', window).as('beyond')])
      .where('workspace_id', '=', workspaceId)
      .where('object_type', '=', objectType)
      .executeTakeFirstOrThrow(),
  ]);
  return cursorPage(rows, (row) => row.id, window, totals);
}
