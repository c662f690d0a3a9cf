import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { beyondWindow, cursorPage, windowOrder, withinWindow, type CursorWindow } from './cursor-page.js';
import { anyText } from '../db/json-lists.js';

/** The live list (versionPk null) or one draft version of it. */
export interface MemberSet {
  workspaceId: number;
  listPk: number;
  versionPk: number | null;
}

/** An event recorded for each user a change adds or removes (`$USER_ENTERED_LIST - <id>`), or none. */
export type ListEvent = { event: string; listId: string } | null;

const sameSet = (set: MemberSet) =>
  set.versionPk === null
    ? sql`m.list_pk = ${set.listPk} and m.version_pk is null`
    : sql`m.list_pk = ${set.listPk} and m.version_pk = ${set.versionPk}`;

/** Events for the users in `source` (a CTE with a user_id column), when `event` is set. */
const recordEvents = (workspaceId: number, source: string, event: ListEvent) =>
  event === null
    ? sql`select 1`
    : sql`insert into events (workspace_id, distinct_id, event, properties, insert_id, created_at)
        select ${workspaceId}, u.distinct_id, ${event.event}, ${JSON.stringify({ list_id: event.listId })}::jsonb,
               gen_random_uuid()::text, clock_timestamp()
        from ${sql.table(source)} c join users u on u.id = c.user_id
        returning 1`;

/** Adds users (by id) to the set, skipping members already there, and records `event` for the new ones. One statement. */
export async function addMembers(db: Db, set: MemberSet, userIds: number[], event: ListEvent): Promise<number> {
  const { rows } = await sql<{ affected: number }>`
    with added as (
      insert into subscriber_list_members (workspace_id, list_pk, version_pk, user_id)
      select ${set.workspaceId}, ${set.listPk}, ${set.versionPk}::bigint, ids.value::bigint
      from jsonb_array_elements_text(${JSON.stringify(userIds)}::jsonb) as ids(value)
      order by ids.value::bigint
      on conflict (list_pk, coalesce(version_pk, 0), user_id) do nothing
      returning user_id
    ), recorded as (${recordEvents(set.workspaceId, 'added', event)})
    select count(*)::integer as affected from added`.execute(db);
  return rows[0]!.affected;
}

/** Removes the named users from the set (unknown ones are skipped) and records `event` for them. One statement. */
export async function removeMembers(db: Db, set: MemberSet, distinctIds: string[], event: ListEvent): Promise<number> {
  const { rows } = await sql<{ affected: number }>`
    with removed as (
      delete from subscriber_list_members m
      where ${sameSet(set)} and m.user_id in (
        select id from users where workspace_id = ${set.workspaceId}
          and distinct_id = ${anyText(distinctIds)}
      )
      returning m.user_id
    ), recorded as (${recordEvents(set.workspaceId, 'removed', event)})
    select count(*)::integer as affected from removed`.execute(db);
  return rows[0]!.affected;
}

/**
 * finish_sync: the live members become exactly the draft's, in one statement. Members the draft
 * lacks leave (`exit` recorded for them), draft members not yet live join (`entry` recorded), and
 * members in both keep their row and its created_at.
 */
export async function replaceLiveMembers(
  db: Db,
  workspaceId: number,
  listPk: number,
  versionPk: number,
  events: { entry: ListEvent; exit: ListEvent },
): Promise<void> {
  await sql`
    with draft as (
      select user_id from subscriber_list_members where list_pk = ${listPk} and version_pk = ${versionPk}
    ), exited as (
      delete from subscriber_list_members m
      where m.list_pk = ${listPk} and m.version_pk is null
        and not exists (select 1 from draft d where d.user_id = m.user_id)
      returning m.user_id
    ), entered as (
      insert into subscriber_list_members (workspace_id, list_pk, version_pk, user_id)
      select ${workspaceId}, ${listPk}, null, d.user_id from draft d
      where not exists (
        select 1 from subscriber_list_members m where m.list_pk = ${listPk} and m.version_pk is null and m.user_id = d.user_id
      )
      order by d.user_id
      returning user_id
    ), recorded_exits as (${recordEvents(workspaceId, 'exited', events.exit)}),
    recorded_entries as (${recordEvents(workspaceId, 'entered', events.entry)})
    select 1`.execute(db);
}

/** One page of the set's members, oldest membership first. */
export async function listMembers(db: Db, set: MemberSet, window: CursorWindow) {
  const [{ rows }, { rows: totals }] = await Promise.all([
    sql<{ id: number; distinct_id: string; created_at: Date }>`
      select m.id, u.distinct_id, m.created_at from subscriber_list_members m join users u on u.id = m.user_id
      where ${sameSet(set)} and ${withinWindow('m.id', window)}
      order by m.id ${sql.raw(windowOrder(window))} limit ${window.limit + 1}`.execute(db),
    sql<{ count: number; beyond: number }>`
      select count(*) as count, ${beyondWindow('m.id', window)} as beyond
      from subscriber_list_members m where ${sameSet(set)}`.execute(db),
  ]);
  return cursorPage(rows, (row) => row.id, window, totals[0]!);
}

/** One page of the live lists a user belongs to, oldest membership first. */
export async function listListsOfUser(db: Db, userId: number, window: CursorWindow) {
  const [{ rows }, { rows: totals }] = await Promise.all([
    sql<{
      id: number;
      created_at: Date;
      list_id: string;
      list_name: string;
      list_description: string | null;
      source: string | null;
      updated_at: Date;
      subscribers_count: number;
    }>`
      select m.id, m.created_at, l.list_id, l.list_name, l.list_description, l.source, l.updated_at,
        (select count(*) from subscriber_list_members c where c.list_pk = l.id and c.version_pk is null)::integer as subscribers_count
      from subscriber_list_members m join subscriber_lists l on l.id = m.list_pk
      where m.user_id = ${userId} and m.version_pk is null and ${withinWindow('m.id', window)}
      order by m.id ${sql.raw(windowOrder(window))} limit ${window.limit + 1}`.execute(db),
    sql<{ count: number; beyond: number }>`
      select count(*) as count, ${beyondWindow('m.id', window)} as beyond
      from subscriber_list_members m where m.user_id = ${userId} and m.version_pk is null`.execute(db),
  ]);
  return cursorPage(rows, (row) => row.id, window, totals[0]!);
}

/** One page of the live list's members after `after` (a member row id), with their distinct_ids. One statement. */
export function findMemberPage(db: Db, listPk: number, after: number, limit: number) {
  return db
    .selectFrom('subscriber_list_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.id', 'u.distinct_id'])
    .where('m.list_pk', '=', listPk)
    .where('m.version_pk', 'is', null)
    .where('m.id', '>', after)
    .orderBy('m.id')
    .limit(limit)
    .execute();
}
