import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { fullErrors } from '../schemas/common.js';
import {
  LEGACY_INBOX_SECURITY,
  LegacyActionBodySchema,
  LegacyBodySchema,
  LegacyClickBodySchema,
  LegacyClickParamsSchema,
  LegacyCountQuerySchema,
  LegacyCountSchema,
  LegacyDoneSchema,
  LegacyListQuerySchema,
  LegacyListSchema,
  LegacyNotificationParamsSchema,
  LegacyNotificationSchema,
  LegacyScopeQuerySchema,
} from '../schemas/legacy-inbox.js';
import { presentLegacyNotification } from '../presenters/feed.js';
import { actOnNotification, getNotification, markNotifications, resetBadge } from '../services/feed.js';
import {
  clickLegacyNotification,
  countLegacyNotifications,
  legacyFeedOwner,
  listLegacyNotifications,
} from '../services/legacy-inbox.js';

const ACTIONS = { read: 'read', unread: 'unread', archive: 'archive' } as const;

/**
 * The older inbox API (`@suprsend/js-inbox` 2, `@suprsend/react-inbox` 3, `@suprsend/web-inbox`; docs/clients.md)
 * over the same feed as the web SDK 4's: the workspace key in `Authorization`, the subscriber id the inbox
 * secret signs in the query (GET) or the body (POST), checked on every call.
 */
export const legacyInboxRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['inbox (older clients)'];
  const security = LEGACY_INBOX_SECURITY;
  const ownerOf = (
    authorization: string | undefined,
    who: { distinct_id: string; subscriber_id: string; tenant_id?: string },
  ) => legacyFeedOwner(app.db, app.secretBox, authorization, who);

  app.addHook('onRequest', async (_request, reply) => {
    // Browsers call from the customer's page; no cookie is ever involved, so any origin may.
    reply.header('access-control-allow-origin', '*');
  });
  for (const url of [
    '/notifications/',
    '/notification_count/',
    '/notification/*',
    '/bell-clicked/',
    '/mark-all-read/',
    '/collector/*',
  ])
    app.options(url, { schema: { hide: true, response: { 204: { type: 'null' } } } }, async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', 'authorization, content-type')
        .header('access-control-max-age', '600')
        .send(),
    );

  app.get(
    '/notifications/',
    {
      schema: {
        tags,
        security,
        operationId: 'listNotificationsByPage',
        summary: "The user's feed by page number (older inbox clients)",
        querystring: LegacyListQuerySchema,
        response: { 200: LegacyListSchema, ...fullErrors(400, 401) },
      },
    },
    async (request) => {
      const owner = await ownerOf(request.headers.authorization, request.query);
      const { rows, meta } = await listLegacyNotifications(app.db, owner, request.query);
      return { results: rows.map(presentLegacyNotification), meta };
    },
  );

  app.get(
    '/notification_count/',
    {
      schema: {
        tags,
        security,
        operationId: 'countNotificationsByStore',
        summary: "The badge and each store's unread count (older inbox clients)",
        querystring: LegacyCountQuerySchema,
        response: { 200: LegacyCountSchema, ...fullErrors(400, 401) },
      },
    },
    async (request) =>
      countLegacyNotifications(
        app.db,
        await ownerOf(request.headers.authorization, request.query),
        request.query.stores,
      ),
  );

  app.get(
    '/notification/:n_id/',
    {
      schema: {
        tags,
        security,
        operationId: 'getNotificationData',
        summary: 'One notification of the user (older inbox clients)',
        params: LegacyNotificationParamsSchema,
        querystring: LegacyScopeQuerySchema,
        response: { 200: LegacyNotificationSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const owner = await ownerOf(request.headers.authorization, request.query);
      return { data: presentLegacyNotification(await getNotification(app.db, owner, request.params.n_id)) };
    },
  );

  app.post(
    '/notification/:n_id/action',
    {
      schema: {
        tags,
        security,
        operationId: 'actOnNotification',
        summary: 'Mark one notification read, unread or archived (older inbox clients)',
        params: LegacyNotificationParamsSchema,
        body: LegacyActionBodySchema,
        response: { 200: LegacyNotificationSchema, ...fullErrors(400, 401, 404, 422) },
      },
    },
    async (request) => {
      const owner = await ownerOf(request.headers.authorization, request.body);
      const row = await actOnNotification(app.db, owner, request.params.n_id, ACTIONS[request.body.action]);
      return { data: presentLegacyNotification(row) };
    },
  );

  app.post(
    '/bell-clicked/',
    {
      schema: {
        tags,
        security,
        operationId: 'bellClicked',
        summary: 'The bell was opened: the badge goes to 0 (older inbox clients)',
        body: LegacyBodySchema,
        response: { 200: LegacyDoneSchema, ...fullErrors(400, 401) },
      },
    },
    async (request) => {
      await resetBadge(app.db, await ownerOf(request.headers.authorization, request.body));
      return { success: true };
    },
  );

  app.post(
    '/mark-all-read/',
    {
      schema: {
        tags,
        security,
        operationId: 'markAllRead',
        summary: "Mark every notification of the user's feed read (older inbox clients)",
        body: LegacyBodySchema,
        response: { 200: LegacyDoneSchema, ...fullErrors(400, 401) },
      },
    },
    async (request) => {
      await markNotifications(app.db, await ownerOf(request.headers.authorization, request.body), { to: 'read' });
      return { success: true };
    },
  );

  app.post(
    '/collector/:distinct_id/:subscriber_id/event/',
    {
      schema: {
        tags,
        security,
        operationId: 'notificationClicked',
        summary: 'A notification was clicked: clicked and read (older inbox clients, collectorHost)',
        description:
          "Point the clients' `collectorHost` at `{herald}/collector/{distinct_id}/{subscriber_id}` (URL-encoded): " +
          'the click they post there names only the notification, so the path carries their subscriber proof.',
        params: LegacyClickParamsSchema,
        body: LegacyClickBodySchema,
        response: { 202: LegacyDoneSchema, ...fullErrors(400, 401, 404, 422) },
      },
    },
    async (request, reply) => {
      const { workspaceId, distinctId } = await ownerOf(request.headers.authorization, request.params);
      await clickLegacyNotification(app.db, { workspaceId, distinctId }, request.body.properties.id);
      return reply.code(202).send({ success: true });
    },
  );
};
