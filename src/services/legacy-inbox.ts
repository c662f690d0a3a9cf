import type { Db } from '../db/database.js';
import type { Sealer } from '../domain/vendor-secrets.js';
import { readStoreParam, parsedOrBadRequest } from '../domain/feed.js';
import { notFound, unauthorized } from '../errors.js';
import { findFeedMessageTenant, listFeed, type FeedOwner } from '../repositories/feed.js';
import { findAuthenticatingWorkspaceKey } from '../repositories/workspace-keys.js';
import { actOnNotification, countNotifications } from './feed.js';
import { inboxSubscriberIdMatches } from './inbox-secrets.js';

/**
 * An older inbox client's call (docs/clients.md): `Authorization: <workspace key>:<anything>` names the
 * workspace (an active, undeleted pair); `subscriber_id` must be the workspace inbox secret's HMAC of
 * `distinct_id`. Every failure is the same 401. The feed read is the caller's, in the tenant it names.
 */
export async function legacyFeedOwner(
  db: Db,
  secretBox: Sealer,
  authorization: string | undefined,
  who: { distinct_id: string; subscriber_id: string; tenant_id?: string },
): Promise<FeedOwner> {
  const key = authorization?.split(':')[0]?.trim();
  if (!key || !who.distinct_id || !who.subscriber_id) throw unauthorized();
  const pair = await findAuthenticatingWorkspaceKey(db, key);
  if (!pair) throw unauthorized();
  if (!(await inboxSubscriberIdMatches(db, secretBox, pair.id, who.distinct_id, who.subscriber_id)))
    throw unauthorized();
  return { workspaceId: pair.id, distinctId: who.distinct_id, tenantId: who.tenant_id ?? 'default' };
}

/** One numbered page of the feed, over the notifications created by `before` (the client's first read). */
export async function listLegacyNotifications(
  db: Db,
  owner: FeedOwner,
  query: { store?: string; page_no?: number; page_size?: number; before?: number },
) {
  const size = query.page_size ?? 20;
  const pageNo = query.page_no ?? 1;
  const page = await listFeed(db, owner, parsedOrBadRequest(readStoreParam(query.store)), undefined, size, {
    offset: (pageNo - 1) * size,
    createdUpToMs: query.before,
  });
  return {
    rows: page.rows,
    meta: { current_page: pageNo, total_pages: Math.ceil(page.total / size), total_count: page.total },
  };
}

/** The badge as `ss_bell_count`, with each store's unread count by its id. */
export async function countLegacyNotifications(db: Db, owner: FeedOwner, stores: string | undefined) {
  const { badge, ...perStore } = await countNotifications(db, owner, stores);
  return { ss_bell_count: badge ?? 0, ...perStore };
}

/**
 * The older clients' click (`$notification_clicked`, sent to `collectorHost`), recorded as the web SDK 4 feed's
 * `interacted` is: clicked and read, with the same socket events. The click names no tenant, so the message is
 * looked up among the subscriber's own, in whichever tenant's feed it is; another user's message is not found.
 */
export async function clickLegacyNotification(db: Db, subscriber: Omit<FeedOwner, 'tenantId'>, id: string) {
  const tenantId = await findFeedMessageTenant(db, subscriber, id);
  if (tenantId === undefined) throw notFound(`notification '${id}' not found`);
  await actOnNotification(db, { ...subscriber, tenantId }, id, 'interacted');
}
