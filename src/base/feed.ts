import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { verifyInboxToken, type InboxSubscriber } from '../auth/inbox-token.js';
import { fullErrors, ref } from '../schemas/common.js';
import { EVENT_BODY_LIMIT } from '../schemas/events.js';
import { triggerEventWorkflows } from '../engine/event-triggers.js';
import { presentNotification } from '../presenters/feed.js';
import { subscriberPreferenceRoutes } from './subscriber-preferences.js';
import {
  BulkSeenBodySchema,
  EmptyBodySchema,
  INBOX_SECURITY,
  FeedCountQuerySchema,
  FeedCountSchema,
  FeedEventAcceptedSchema,
  FeedListQuerySchema,
  FeedListSchema,
  FeedScopeQuerySchema,
  FeedUpdatedSchema,
  NotificationActionParamsSchema,
  NotificationParamsSchema,
  NotificationSchema,
} from '../schemas/feed.js';
import {
  actOnNotification,
  countNotifications,
  feedOwner,
  getNotification,
  listNotifications,
  markNotifications,
  recordBrowserEvent,
  resetBadge,
} from '../services/feed.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The feed's caller, set by the feed tree's auth hook. */
    subscriber?: InboxSubscriber;
  }
}

/**
 * The in-app feed (docs/spec/engine.md §8) as the official web SDK calls it: the workspace public
 * key in `Authorization`, the user token in `x-ss-signature`, verified on every call. Paths are
 * matched with or without the trailing slash (the SDK sends none). Every answer is a JSON body.
 */
export const feedTree: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['inbox'];
  const security = INBOX_SECURITY;

  app.addHook('onRequest', async (request, reply) => {
    // Browsers call from the customer's page; no cookie is ever involved, so any origin may.
    reply.header('access-control-allow-origin', '*');
  });
  app.addHook('preValidation', async (request) => {
    // A preflight carries no credentials; it only learns which headers a call may send.
    if (request.method === 'OPTIONS') return;
    const signature = request.headers['x-ss-signature'];
    request.subscriber = await verifyInboxToken(app.db, {
      authorization: request.headers.authorization,
      signature: typeof signature === 'string' ? signature : undefined,
    });
  });
  for (const url of ['/v1/feed/*', '/v2/event', '/v2/subscriber/*'])
    app.options(
      url,
      {
        schema: { hide: true, response: { 204: { type: 'null' } } },
      },
      async (_request, reply) =>
        reply
          .code(204)
          .header('access-control-allow-methods', 'GET, POST, PATCH, OPTIONS')
          .header('access-control-allow-headers', 'authorization, content-type, x-ss-signature')
          .header('access-control-max-age', '600')
          .send(),
    );

  app.get(
    '/v1/feed/notifications/',
    {
      schema: {
        tags,
        security,
        operationId: 'listNotifications',
        summary: "The user's feed, pinned first then newest first (page ≤ 100), filtered by a store",
        querystring: FeedListQuerySchema,
        response: { 200: FeedListSchema, ...fullErrors(400, 401, 403) },
      },
    },
    async (request) => {
      const { rows, meta } = await listNotifications(
        app.db,
        feedOwner(request.subscriber!, request.query),
        request.query,
      );
      return { results: rows.map(presentNotification), meta };
    },
  );

  app.get(
    '/v1/feed/notifications/:n_id/',
    {
      schema: {
        tags,
        security,
        operationId: 'getNotification',
        summary: 'One notification of the user',
        params: NotificationParamsSchema,
        querystring: FeedScopeQuerySchema,
        response: { 200: ref(NotificationSchema), ...fullErrors(400, 401, 403, 404) },
      },
    },
    async (request) =>
      presentNotification(
        await getNotification(app.db, feedOwner(request.subscriber!, request.query), request.params.n_id),
      ),
  );

  app.get(
    '/v1/feed/notifications_count/',
    {
      schema: {
        tags,
        security,
        operationId: 'countNotifications',
        summary: 'The badge (unseen) and the unread count of each store',
        querystring: FeedCountQuerySchema,
        response: { 200: FeedCountSchema, ...fullErrors(400, 401, 403) },
      },
    },
    async (request) => countNotifications(app.db, feedOwner(request.subscriber!, request.query), request.query.stores),
  );

  app.patch(
    '/v1/feed/notifications/:n_id/:action/',
    {
      schema: {
        tags,
        security,
        operationId: 'updateNotification',
        body: EmptyBodySchema,
        summary: 'Mark one notification seen, read, unread, interacted (clicked and read) or archived',
        params: NotificationActionParamsSchema,
        querystring: FeedScopeQuerySchema,
        response: { 200: ref(NotificationSchema), ...fullErrors(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const owner = feedOwner(request.subscriber!, request.query);
      return presentNotification(await actOnNotification(app.db, owner, request.params.n_id, request.params.action));
    },
  );

  app.post(
    '/v1/feed/bulk/notifications/seen/',
    {
      schema: {
        tags,
        security,
        operationId: 'markNotificationsSeen',
        summary: 'Mark notifications seen (1 to 1000; ids not in the feed are skipped)',
        querystring: FeedScopeQuerySchema,
        body: BulkSeenBodySchema,
        response: { 200: FeedUpdatedSchema, ...fullErrors(400, 401, 403) },
      },
    },
    async (request) => {
      const owner = feedOwner(request.subscriber!, request.query);
      const updated = await markNotifications(app.db, owner, { to: 'seen', ids: request.body.notification_ids });
      return { success: true, updated };
    },
  );

  app.patch(
    '/v1/feed/mark_all_read/',
    {
      schema: {
        tags,
        security,
        operationId: 'markAllNotificationsRead',
        body: EmptyBodySchema,
        summary: "Mark every notification of the user's feed read",
        querystring: FeedScopeQuerySchema,
        response: { 200: FeedUpdatedSchema, ...fullErrors(400, 401, 403) },
      },
    },
    async (request) => {
      const updated = await markNotifications(app.db, feedOwner(request.subscriber!, request.query), { to: 'read' });
      return { success: true, updated };
    },
  );

  app.patch(
    '/v1/feed/reset_bell_count/',
    {
      schema: {
        tags,
        security,
        operationId: 'resetBellCount',
        body: EmptyBodySchema,
        summary: 'The bell was opened: the badge goes to 0 (what it counted is seen)',
        querystring: FeedScopeQuerySchema,
        response: { 200: FeedUpdatedSchema, ...fullErrors(400, 401, 403) },
      },
    },
    async (request) => {
      const updated = await resetBadge(app.db, feedOwner(request.subscriber!, request.query));
      return { success: true, updated };
    },
  );

  app.post(
    '/v2/event',
    {
      bodyLimit: EVENT_BODY_LIMIT,
      schema: {
        tags,
        security,
        operationId: 'trackBrowserEvent',
        summary: "The web SDK's identify and track, for the token's user",
        body: { type: 'object', description: '{event, $insert_id, $time, distinct_id?, properties}' },
        response: { 202: FeedEventAcceptedSchema, ...fullErrors(400, 401, 403, 413) },
      },
    },
    async (request, reply) => {
      await app.db.transaction().execute(async (trx) => {
        const events = await recordBrowserEvent(
          trx,
          request.subscriber!,
          request.body as Record<string, unknown>,
          app.outbound,
        );
        // Event-triggered workflows start in the transaction that stores their event (docs/engine.md).
        if (app.queue) await triggerEventWorkflows(trx, app.queue, request.subscriber!.workspaceId, events);
      });
      return reply.code(202).send({ success: true });
    },
  );

  // The browser's preference calls share this tree's credentials check (docs/spec/product.md §4).
  await app.register(subscriberPreferenceRoutes);
};
