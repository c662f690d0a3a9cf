import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

export interface ListRow {
  id: number;
  list_id: string;
  list_name: string;
  list_description: string | null;
  source: string | null;
  track_user_entry: boolean;
  track_user_exit: boolean;
  created_at: Date;
  updated_at: Date;
  subscribers_count: number;
  drafts: { version_id: string; subscribers_count: number; created_at: string }[] | null;
}

/** The live member count and the draft versions, computed beside each list row. */
const listColumns = sql`l.id, l.list_id, l.list_name, l.list_description, l.source, l.track_user_entry,
  l.track_user_exit, l.created_at, l.updated_at,
  (select count(*) from subscriber_list_members m where m.list_pk = l.id and m.version_pk is null)::integer as subscribers_count,
  (select jsonb_agg(jsonb_build_object('version_id', v.version_id, 'created_at', v.created_at,
     'subscribers_count', (select count(*) from subscriber_list_members d where d.version_pk = v.id)) order by v.id)
   from subscriber_list_versions v where v.list_pk = l.id) as drafts`;

/** Creates the list or updates the given fields, then reads it back with its counts. Two statements. */
export async function upsertList(
  db: Db,
  workspaceId: number,
  input: {
    listId: string;
    listName?: string;
    listDescription?: string | null;
    trackUserEntry?: boolean;
    trackUserExit?: boolean;
  },
): Promise<ListRow> {
  await db
    .insertInto('subscriber_lists')
    .values({
      workspace_id: workspaceId,
      list_id: input.listId,
      list_name: input.listName ?? input.listId,
      list_description: input.listDescription ?? null,
      track_user_entry: input.trackUserEntry ?? false,
      track_user_exit: input.trackUserExit ?? false,
    })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'list_id']).doUpdateSet({
        list_name: input.listName ?? sql<string>`subscriber_lists.list_name`,
        list_description:
          input.listDescription !== undefined ? input.listDescription : sql<string>`subscriber_lists.list_description`,
        track_user_entry: input.trackUserEntry ?? sql<boolean>`subscriber_lists.track_user_entry`,
        track_user_exit: input.trackUserExit ?? sql<boolean>`subscriber_lists.track_user_exit`,
        updated_at: sql`greatest(clock_timestamp(), subscriber_lists.updated_at + interval '1 millisecond')`,
      }),
    )
    .execute();
  return (await findList(db, workspaceId, input.listId))!;
}

export async function findList(db: Db, workspaceId: number, listId: string): Promise<ListRow | undefined> {
  const { rows } = await sql<ListRow>`select ${listColumns} from subscriber_lists l
    where l.workspace_id = ${workspaceId} and l.list_id = ${listId}`.execute(db);
  return rows[0];
}

export async function listLists(db: Db, workspaceId: number, page: { limit: number; offset: number }) {
  const [{ rows }, total] = await Promise.all([
    sql<ListRow>`select ${listColumns} from subscriber_lists l where l.workspace_id = ${workspaceId}
      order by l.created_at, l.list_id limit ${page.limit} offset ${page.offset}`.execute(db),
    db
      .selectFrom('subscriber_lists')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export interface LockedList {
  id: number;
  list_id: string;
  track_user_entry: boolean;
  track_user_exit: boolean;
}

/**
 * Locks the list row and marks it updated, in one statement: every change of a list's members (live
 * or draft) takes this lock first, so a finish_sync never interleaves with adds to the same list.
 */
export function lockList(trx: Trx, workspaceId: number, listId: string): Promise<LockedList | undefined> {
  return trx
    .updateTable('subscriber_lists')
    .set({ updated_at: sql`greatest(clock_timestamp(), updated_at + interval '1 millisecond')` })
    .where('workspace_id', '=', workspaceId)
    .where('list_id', '=', listId)
    .returning(['id', 'list_id', 'track_user_entry', 'track_user_exit'])
    .executeTakeFirst();
}

export async function deleteList(db: Db, workspaceId: number, listId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('subscriber_lists')
    .where('workspace_id', '=', workspaceId)
    .where('list_id', '=', listId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export function insertVersion(db: Db, workspaceId: number, listPk: number, versionId: string) {
  return db
    .insertInto('subscriber_list_versions')
    .values({ workspace_id: workspaceId, list_pk: listPk, version_id: versionId })
    .returning(['id', 'version_id', 'created_at'])
    .executeTakeFirstOrThrow();
}

export function findVersion(db: Db, listPk: number, versionId: string) {
  return db
    .selectFrom('subscriber_list_versions')
    .select(['id', 'version_id', 'created_at'])
    .where('list_pk', '=', listPk)
    .where('version_id', '=', versionId)
    .executeTakeFirst();
}

/** A version with the list it belongs to, for GET version: one statement. */
export async function findListVersion(db: Db, workspaceId: number, listId: string, versionId: string) {
  const { rows } = await sql<ListRow & { version_id: string; version_count: number }>`
    select ${listColumns}, v.version_id,
      (select count(*) from subscriber_list_members d where d.version_pk = v.id)::integer as version_count
    from subscriber_lists l join subscriber_list_versions v on v.list_pk = l.id
    where l.workspace_id = ${workspaceId} and l.list_id = ${listId} and v.version_id = ${versionId}`.execute(db);
  return rows[0];
}

export async function deleteVersion(db: Db, versionPk: number): Promise<void> {
  await db.deleteFrom('subscriber_list_versions').where('id', '=', versionPk).execute();
}

/** Which of these lists exist (by list_id), without their counts. One statement. */
export function findListIds(db: Db, workspaceId: number, listIds: string[]) {
  return db
    .selectFrom('subscriber_lists')
    .select(['id', 'list_id'])
    .where('workspace_id', '=', workspaceId)
    .where('list_id', 'in', listIds)
    .execute();
}

/** findListIds for lists of several workspaces (a batch of trigger jobs), in one statement. */
export function findListIdsOf(db: Db, refs: { workspaceId: number; listId: string }[]) {
  const pairs = JSON.stringify(refs.map((ref) => ({ w: ref.workspaceId, l: ref.listId })));
  return db
    .selectFrom('subscriber_lists')
    .select(['id', 'workspace_id', 'list_id'])
    .where(
      sql<boolean>`(workspace_id, list_id) in (select w, l from jsonb_to_recordset(${pairs}::jsonb) as r(w bigint, l text))`,
    )
    .execute();
}
