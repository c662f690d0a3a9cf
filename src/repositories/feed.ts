import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import type { FeedCursor, FeedFilter, FeedStore } from '../domain/feed.js';

/** Whose feed: one subscriber of one workspace, in one tenant. */
export interface FeedOwner {
  workspaceId: number;
  distinctId: string;
  tenantId: string;
}

const list = (values: string[]) => sql<string>`(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
const PINNED = sql<number>`(case when content -> 'is_pinned' = 'true'::jsonb then 1 else 0 end)`;
const CREATED_MS = sql<number>`floor(extract(epoch from created_at) * 1000)::bigint`;

/** The subscriber's delivered inbox messages, in every tenant. */
function subscriberMessages(db: Db, subscriber: Omit<FeedOwner, 'tenantId'>) {
  return db
    .selectFrom('messages')
    .where('workspace_id', '=', subscriber.workspaceId)
    .where('channel', '=', 'inbox')
    .where('recipient_type', '=', 'user')
    .where('distinct_id', '=', subscriber.distinctId)
    .where('delivered_at', 'is not', null);
}

/** The owner's delivered inbox messages: nothing else is ever in a feed. */
function owned(db: Db, owner: FeedOwner) {
  return subscriberMessages(db, owner).where('tenant_id', '=', owner.tenantId);
}

function matches(filter: FeedFilter): Expression<SqlBool> {
  const parts = [sql`is_archived = ${filter.archived}`];
  if (filter.read !== undefined) parts.push(sql`is_read = ${filter.read}`);
  if (filter.categories.length) parts.push(sql`category in ${list(filter.categories)}`);
  if (filter.tags.length)
    parts.push(sql`exists (select 1 from jsonb_array_elements_text(
      case when jsonb_typeof(content -> 'tags') = 'array' then content -> 'tags' else '[]'::jsonb end) as tag
      where tag in ${list(filter.tags)})`);
  return sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
}

/** One page, pinned first then newest first, and the total, in two statements. */
export async function listFeed(
  db: Db,
  owner: FeedOwner,
  filter: FeedFilter,
  after: FeedCursor | undefined,
  limit: number,
  numbered?: { offset: number; createdUpToMs?: number },
) {
  // The older inbox clients page by number over the notifications that existed when their first page was read.
  const upTo = numbered?.createdUpToMs;
  const scope = () => {
    const rows = owned(db, owner).where(matches(filter));
    return upTo === undefined ? rows : rows.where(sql<SqlBool>`${CREATED_MS} <= ${upTo}`);
  };
  let rows = scope().selectAll();
  if (after)
    rows = rows.where(sql<SqlBool>`(${PINNED}, ${CREATED_MS}) < (${after.pinned ? 1 : 0}, ${after.createdOnMs})`);
  const page = await rows
    .orderBy(PINNED, 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(limit + 1)
    .offset(numbered?.offset ?? 0)
    .execute();
  const total = await scope()
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return { rows: page.slice(0, limit), hasMore: page.length > limit, total: Number(total.count) };
}

export function findFeedMessage(db: Db, owner: FeedOwner, id: string) {
  return owned(db, owner).selectAll().where('id', '=', id).executeTakeFirst();
}

export function lockFeedMessage(trx: Trx, owner: FeedOwner, id: string) {
  return owned(trx, owner).selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The tenant of one of the subscriber's delivered inbox messages (the feed it is in), if it is theirs. */
export async function findFeedMessageTenant(db: Db, subscriber: Omit<FeedOwner, 'tenantId'>, id: string) {
  const row = await subscriberMessages(db, subscriber).select('tenant_id').where('id', '=', id).executeTakeFirst();
  return row?.tenant_id;
}

/**
 * The badge (unseen, unarchived) and each store's unread count, in one statement whatever the
 * number of stores.
 */
export async function countFeed(db: Db, owner: FeedOwner, stores: FeedStore[]) {
  const row = await owned(db, owner)
    .select([
      sql<number>`count(*) filter (where seen_at is null and not is_archived)`.as('badge'),
      ...stores.map((store, index) =>
        sql<number>`count(*) filter (where not is_read and ${matches(store.filter)})`.as(`s${index}`),
      ),
    ])
    .executeTakeFirstOrThrow();
  const counts = row as unknown as Record<string, number | string>;
  const result: Record<string, number> = { badge: Number(counts.badge) };
  stores.forEach((store, index) => (result[store.storeId] = Number(counts[`s${index}`])));
  return result;
}

/**
 * Marks many of the owner's messages seen (the given ids, or every one the badge counts) or read
 * (all of them), in one statement.
 * Status moves forward only (`forwardFrom` are the statuses below the target); ids are returned.
 */
export async function markFeed(
  db: Db,
  owner: FeedOwner,
  change: { to: 'seen' | 'read'; forwardFrom: string[]; ids?: string[]; now: Date },
): Promise<string[]> {
  let q = db
    .updateTable('messages')
    .set({
      status: sql`case when status in ${list(change.forwardFrom)} then ${change.to} else status end`,
      seen_at: sql`coalesce(seen_at, ${change.now})`,
      ...(change.to === 'read' ? { is_read: true, read_at: change.now } : {}),
    })
    .where('workspace_id', '=', owner.workspaceId)
    .where('channel', '=', 'inbox')
    .where('recipient_type', '=', 'user')
    .where('distinct_id', '=', owner.distinctId)
    .where('tenant_id', '=', owner.tenantId)
    .where('delivered_at', 'is not', null);
  if (change.ids) q = q.where('id', 'in', list(change.ids)).where('seen_at', 'is', null);
  else if (change.to === 'read') q = q.where('is_read', '=', false);
  else q = q.where('seen_at', 'is', null).where('is_archived', '=', false);
  const rows = await q.returning('id').execute();
  return rows.map((row) => row.id);
}
