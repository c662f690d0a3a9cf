import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import { beyondWindow, cursorPage, windowOrder, withinWindow, type CursorWindow } from './cursor-page.js';
import type { ObjectRef, ObjectRow } from './objects.js';
import type { UserRow } from './users.js';
import { anyText } from '../db/json-lists.js';

export interface SubscriptionRow {
  id: number;
  user_id: number | null;
  child_object_id: number | null;
  properties: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

/**
 * Ids of the object and of every object it is subscribed to, directly or through others: an
 * object among these cannot subscribe to it without making a cycle. One statement.
 */
export async function selfAndAncestors(trx: Trx, objectId: number): Promise<Set<number>> {
  const { rows } = await sql<{ id: number }>`
    with recursive up(id) as (
      select ${objectId}::bigint
      union
      select s.object_id from subscriptions s join up on s.child_object_id = up.id
    )
    select id from up`.execute(trx);
  return new Set(rows.map((row) => Number(row.id)));
}

/** Serializes changes to the workspace's object graph, so two requests cannot close a cycle between them. */
export async function lockObjectGraph(trx: Trx, workspaceId: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(${workspaceId}::integer, 2026112521)`.execute(trx);
}

/**
 * Subscribes users and child objects to a parent in one statement. An existing subscription gets
 * the new properties and a later updated_at, and keeps created_at; the count triggers see only
 * rows actually inserted.
 */
export async function upsertSubscriptions(
  trx: Trx,
  parentId: number,
  subscribers: { user_id: number | null; child_object_id: number | null }[],
  properties: Record<string, unknown>,
): Promise<SubscriptionRow[]> {
  const { rows } = await sql<SubscriptionRow>`
    insert into subscriptions (object_id, user_id, child_object_id, properties)
    select ${parentId}::bigint, r.user_id, r.child_object_id, ${JSON.stringify(properties)}::jsonb
    from jsonb_to_recordset(${JSON.stringify(subscribers)}::jsonb) as r(user_id bigint, child_object_id bigint)
    order by r.user_id nulls last, r.child_object_id
    on conflict (object_id, coalesce(user_id, 0), coalesce(child_object_id, 0)) do update
      set properties = excluded.properties,
          updated_at = greatest(clock_timestamp(), subscriptions.updated_at + interval '1 millisecond')
    returning id, user_id, child_object_id, properties, created_at, updated_at`.execute(trx);
  return rows;
}

/** Removes the parent's subscriptions of the named users and child objects (unknown ones are skipped). One statement. */
export async function deleteSubscriptions(
  trx: Trx,
  workspaceId: number,
  parentId: number,
  distinctIds: string[],
  children: ObjectRef[],
) {
  const pairs = JSON.stringify(children.map((ref) => ({ t: ref.objectType, i: ref.objectId })));
  const result = await trx
    .deleteFrom('subscriptions')
    .where('object_id', '=', parentId)
    .where((eb) =>
      eb.or([
        eb(
          'user_id',
          'in',
          sql<number>`(select id from users where workspace_id = ${workspaceId} and distinct_id = ${anyText(distinctIds)})`,
        ),
        eb(
          'child_object_id',
          'in',
          sql<number>`(select id from objects where workspace_id = ${workspaceId} and (object_type, object_id) in (select t, i from jsonb_to_recordset(${pairs}::jsonb) as r(t text, i text)))`,
        ),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** One page of an object's subscribers (users and child objects), oldest subscription first. */
export async function listSubscribers(db: Db, parentId: number, window: CursorWindow) {
  const [rows, totals] = await Promise.all([
    db
      .selectFrom('subscriptions as s')
      .leftJoin('users as u', 'u.id', 's.user_id')
      .leftJoin('objects as c', 'c.id', 's.child_object_id')
      .select([
        's.id',
        's.properties',
        's.created_at',
        's.updated_at',
        'u.distinct_id as user_distinct_id',
        'u.updated_at as user_updated_at',
        'c.object_type as child_object_type',
        'c.object_id as child_id',
        'c.subscriptions_count as child_subscriptions_count',
        'c.updated_at as child_updated_at',
      ])
      .where('s.object_id', '=', parentId)
      .where(withinWindow('s.id', window))
      .orderBy('s.id', windowOrder(window))
      .limit(window.limit + 1)
      .execute(),
    db
      .selectFrom('subscriptions')
      .select((eb) => [eb.fn.countAll<number>().as('count'), beyondWindow('id', window).as('beyond')])
      .where('object_id', '=', parentId)
      .executeTakeFirstOrThrow(),
  ]);
  return cursorPage(rows, (row) => row.id, window, totals);
}

/** One page of the objects a user or an object is subscribed to, oldest subscription first. */
export async function listSubscribedTo(
  db: Db,
  subscriber: { userId: number } | { objectId: number },
  window: CursorWindow,
) {
  const column = 'userId' in subscriber ? ('user_id' as const) : ('child_object_id' as const);
  const id = 'userId' in subscriber ? subscriber.userId : subscriber.objectId;
  const [rows, totals] = await Promise.all([
    db
      .selectFrom('subscriptions as s')
      .innerJoin('objects as p', 'p.id', 's.object_id')
      .select([
        's.id',
        's.properties',
        's.created_at',
        's.updated_at',
        'p.object_type',
        'p.object_id',
        'p.subscriptions_count',
        'p.updated_at as object_updated_at',
      ])
      .where(`s.${column}`, '=', id)
      .where(withinWindow('s.id', window))
      .orderBy('s.id', windowOrder(window))
      .limit(window.limit + 1)
      .execute(),
    db
      .selectFrom('subscriptions')
      .select((eb) => [eb.fn.countAll<number>().as('count'), beyondWindow('id', window).as('beyond')])
      .where(column, '=', id)
      .executeTakeFirstOrThrow(),
  ]);
  return cursorPage(rows, (row) => row.id, window, totals);
}

/** A subscription as its add answers it: the row, the user or child object subscribed, and the object. */
export interface AddedSubscription {
  subscription: SubscriptionRow;
  user: UserRow | null;
  object: ObjectRow;
  child: ObjectRow | null;
}
