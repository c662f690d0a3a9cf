import type { Db, Trx } from '../db/database.js';
import { readSearchAfter, readStoreParam, readStoresParam, parsedOrBadRequest } from '../domain/feed.js';
import { applyMessageAction, statusesBefore } from '../domain/message-actions.js';
import { fieldError, HttpError, notFound } from '../errors.js';
import {
  countFeed,
  findFeedMessage,
  listFeed,
  lockFeedMessage,
  markFeed,
  type FeedOwner,
} from '../repositories/feed.js';
import { publishInboxEvents } from '../repositories/inbox-events.js';
import { saveMessageStates, type MessageRow } from '../repositories/messages.js';
import { readEventRecords } from '../domain/event-records.js';
import { insertEvents } from '../repositories/events.js';
import { changeUsers } from './users.js';
import { applyOperations } from '../domain/entity-operations.js';
import { urlRefusal, type OutboundPolicy } from '../channels/outbound.js';
import { messageStateOf } from './messages.js';

/** Who a verified user token is for (src/auth/inbox-token.ts). */
export interface FeedSubscriber {
  workspaceId: number;
  distinctId: string;
  tenantId: string | null;
}

const forbidden = (message: string) => new HttpError(403, message);

/**
 * Whose feed a call reads: always the token's subscriber. A `distinct_id` naming someone else is
 * refused; a token scoped to a tenant reads only that tenant's feed (else the call's, `default`).
 */
export function feedOwner(subscriber: FeedSubscriber, query: { distinct_id?: string; tenant_id?: string }): FeedOwner {
  if (query.distinct_id !== undefined && query.distinct_id !== subscriber.distinctId)
    throw forbidden('distinct_id is not the user token’s subscriber');
  if (subscriber.tenantId && query.tenant_id !== undefined && query.tenant_id !== subscriber.tenantId)
    throw forbidden(`the user token is scoped to tenant '${subscriber.tenantId}'`);
  return {
    workspaceId: subscriber.workspaceId,
    distinctId: subscriber.distinctId,
    tenantId: subscriber.tenantId ?? query.tenant_id ?? 'default',
  };
}

/** One page of the feed as the web SDK reads it. */
export async function listNotifications(
  db: Db,
  owner: FeedOwner,
  query: { store?: string; search_after?: string; page_size?: number },
) {
  const filter = parsedOrBadRequest(readStoreParam(query.store));
  const after = parsedOrBadRequest(readSearchAfter(query.search_after));
  const page = await listFeed(db, owner, filter, after, query.page_size ?? 20);
  return { rows: page.rows, meta: { total_count: page.total, has_more: page.hasMore } };
}

export async function getNotification(db: Db, owner: FeedOwner, id: string) {
  const row = await findFeedMessage(db, owner, id);
  if (!row) throw notFound(`notification '${id}' not found`);
  return row;
}

export async function countNotifications(db: Db, owner: FeedOwner, stores: string | undefined) {
  return countFeed(db, owner, parsedOrBadRequest(readStoresParam(stores)));
}

/**
 * The web SDK's identify and track, for the token's user only: `$identify` makes the user known;
 * any other event is tracked as POST /event/ tracks it. Returns the tracked events, for the caller
 * to start their event-triggered workflows in the same transaction (as POST /event/ does).
 */
export async function recordBrowserEvent(
  trx: Trx,
  subscriber: FeedSubscriber,
  body: Record<string, unknown>,
  outbound: OutboundPolicy,
) {
  if (body.distinct_id !== undefined && body.distinct_id !== subscriber.distinctId)
    throw forbidden('distinct_id is not the user token’s subscriber');
  // The SDK's own user edits ($set, $append of $webpush, …: one operation, no event) edit the token's user only.
  const operation = Object.fromEntries(Object.entries(body).filter(([key]) => USER_OPERATIONS.has(key)));
  const edit = body.event === undefined && Object.keys(operation).length > 0;
  if (edit) refusePrivatePushEndpoints(operation, outbound);
  const { events } =
    body.event === '$identify' || edit
      ? { events: [] }
      : readEventRecords({ ...body, distinct_id: subscriber.distinctId });
  await changeUsers(
    trx,
    subscriber.workspaceId,
    [{ distinctId: subscriber.distinctId, apply: (s) => (edit ? applyOperations(s, [operation], 'body') : s) }],
    { create: true },
  );
  if (events.length > 0) await insertEvents(trx, subscriber.workspaceId, events);
  return events;
}

const USER_OPERATIONS = new Set(['$set', '$set_once', '$add', '$append', '$remove', '$unset']);

/**
 * A browser registers the push endpoint it is given, so what it registers is held to the outbound guard
 * (src/channels/outbound.ts) now, as a 400: an endpoint naming a refused address (private, loopback, …) is
 * never stored for the engine to call.
 */
function refusePrivatePushEndpoints(operation: Record<string, unknown>, outbound: OutboundPolicy) {
  for (const [name, argument] of Object.entries(operation)) {
    if (name !== '$append' || !argument || typeof argument !== 'object') continue;
    const pushes = (argument as Record<string, unknown>).$webpush;
    for (const push of Array.isArray(pushes) ? pushes : pushes === undefined ? [] : [pushes]) {
      const endpoint = (push as { endpoint?: unknown } | null)?.endpoint;
      const at = 'body.$append.$webpush.endpoint';
      if (typeof endpoint !== 'string' || !/^https?:\/\//i.test(endpoint))
        throw fieldError(at, 'must be an http(s) URL');
      const refusal = urlRefusal(endpoint, outbound);
      if (refusal) throw fieldError(at, refusal.message);
    }
  }
}

/** The feed's actions and the message actions they are (docs/spec/engine.md §5, §8). */
const ACTIONS: Record<string, string[]> = {
  seen: ['seen'],
  read: ['read'],
  unread: ['unread'],
  // The web SDK shows an interacted notification as read too.
  interacted: ['clicked', 'read'],
  archive: ['archived'],
};

/** One notification's action, with its `notification_update` event, in one transaction. */
export async function actOnNotification(db: Db, owner: FeedOwner, id: string, action: string) {
  const row = await db.transaction().execute(async (trx) => {
    const row = await lockFeedMessage(trx, owner, id);
    if (!row) throw notFound(`notification '${id}' not found`);
    let state = messageStateOf(row);
    const now = new Date().toISOString();
    for (const step of ACTIONS[action] ?? []) {
      const outcome = applyMessageAction(state, step, now);
      if (!outcome.ok) throw new HttpError(422, outcome.message);
      state = outcome.state;
    }
    await saveMessageStates(trx, [{ id, ...state }]);
    await publishInboxEvents(trx, [{ ...owner, event: 'notification_update', data: { n_id: id, action } }]);
    const when = (value: string | null) => (value === null ? null : new Date(value));
    return {
      ...row,
      ...state,
      seen_at: when(state.seen_at),
      read_at: when(state.read_at),
      clicked_at: when(state.clicked_at),
      dismissed_at: when(state.dismissed_at),
      archived_at: when(state.archived_at),
    } satisfies MessageRow;
  });
  return row;
}

/** Marks the given notifications seen (bulk) or all of them read; one event for the browsers. */
export async function markNotifications(db: Db, owner: FeedOwner, change: { to: 'seen' | 'read'; ids?: string[] }) {
  return db.transaction().execute(async (trx) => {
    const ids = await markFeed(trx, owner, {
      to: change.to,
      forwardFrom: statusesBefore(change.to),
      ids: change.ids ? [...new Set(change.ids)] : undefined,
      now: new Date(),
    });
    // Nothing newly seen: the browsers have nothing to hear.
    if (!change.ids || ids.length > 0)
      await publishInboxEvents(trx, [
        {
          ...owner,
          event: 'bulk_notification_update',
          data: { notification_ids: change.ids ? ids : 'all', action: change.to },
        },
      ]);
    return ids.length;
  });
}

/** Opening the bell: every notification counted on the badge is seen, and the browsers' badges go to 0. */
export async function resetBadge(db: Db, owner: FeedOwner) {
  return db.transaction().execute(async (trx) => {
    const ids = await markFeed(trx, owner, { to: 'seen', forwardFrom: statusesBefore('seen'), now: new Date() });
    await publishInboxEvents(trx, [{ ...owner, event: 'reset_badge', data: {} }]);
    return ids.length;
  });
}
