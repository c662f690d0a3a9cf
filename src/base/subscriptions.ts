import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { surfaceOperation, surfaceParams, surfacePath, surfaceTags, type Surface } from '../http/surfaces.js';
import {
  addSubscriptions,
  listObjectSubscribedTo,
  listSubscribers,
  listUserSubscribedTo,
  removeSubscriptions,
} from '../services/subscriptions.js';
import { objectRefOf } from '../services/objects.js';
import { presentAddedSubscription, presentSubscribedTo, presentSubscriber } from '../presenters/subscriptions.js';
import { NoContent, ref, errors } from '../schemas/common.js';
import { cursorList, CursorQuerySchema } from '../schemas/cursor.js';
import { ObjectParamsSchema } from '../schemas/objects.js';
import {
  AddSubscriptionsBodySchema,
  AddSubscriptionsResultSchema,
  DeleteSubscriptionsBodySchema,
  SubscribedToSchema,
  SubscriptionSchema,
} from '../schemas/subscriptions.js';
import { DistinctIdParamsSchema } from '../schemas/users.js';

/**
 * The subscription reads: an object's subscribers, what a user or an object is subscribed to, on the base surface and, as their management twin, under `/management/v1/{workspace}/`
 * (docs/management-twins.md).
 */
export const subscriptionReadRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'subscriptions');

    app.get(
      surfacePath(surface, '/object/:object_type/:id/subscription/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listSubscriptions'),
          summary: "List an object's subscribers, oldest subscription first",
          params: surfaceParams(surface, ObjectParamsSchema.properties),
          querystring: CursorQuerySchema,
          response: { 200: cursorList(ref(SubscriptionSchema)), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        const { parent, page } = await listSubscribers(
          app.db,
          request.workspace.id,
          objectRefOf(request.params),
          request.query,
        );
        return { meta: page.meta, results: page.results.map(presentSubscriber(parent)) };
      },
    );

    app.get(
      surfacePath(surface, '/user/:distinct_id/subscribed_to/object/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listUserSubscribedTo'),
          summary: 'List the objects a user is subscribed to',
          params: surfaceParams(surface, DistinctIdParamsSchema.properties),
          querystring: CursorQuerySchema,
          response: { 200: cursorList(ref(SubscribedToSchema)), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        const { distinct_id } = request.params;
        const page = await listUserSubscribedTo(app.db, request.workspace.id, distinct_id, request.query);
        return { meta: page.meta, results: page.results.map(presentSubscribedTo) };
      },
    );

    app.get(
      surfacePath(surface, '/object/:object_type/:id/subscribed_to/object/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listObjectSubscribedTo'),
          summary: 'List the objects an object is subscribed to',
          params: surfaceParams(surface, ObjectParamsSchema.properties),
          querystring: CursorQuerySchema,
          response: { 200: cursorList(ref(SubscribedToSchema)), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        const page = await listObjectSubscribedTo(
          app.db,
          request.workspace.id,
          objectRefOf(request.params),
          request.query,
        );
        return { meta: page.meta, results: page.results.map(presentSubscribedTo) };
      },
    );
  };

/** Subscriptions: users and child objects subscribed to a parent object, with properties. */
export const subscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['subscriptions'];
  await app.register(subscriptionReadRoutes('base'));

  app.post(
    '/v1/object/:object_type/:id/subscription/',
    {
      schema: {
        tags,
        operationId: 'addSubscriptions',
        summary: 'Subscribe users (created when unknown) and child objects to an object',
        params: ObjectParamsSchema,
        body: AddSubscriptionsBodySchema,
        response: { 200: AddSubscriptionsResultSchema, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { recipients, properties } = request.body;
      const added = await app.db
        .transaction()
        .execute((trx) =>
          addSubscriptions(trx, request.workspace.id, objectRefOf(request.params), recipients, properties ?? {}),
        );
      return { results: added.map(presentAddedSubscription) };
    },
  );

  app.delete(
    '/v1/object/:object_type/:id/subscription/',
    {
      schema: {
        tags,
        operationId: 'deleteSubscriptions',
        summary: 'Unsubscribe users and child objects from an object',
        params: ObjectParamsSchema,
        body: DeleteSubscriptionsBodySchema,
        response: { 204: NoContent, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await app.db
        .transaction()
        .execute((trx) =>
          removeSubscriptions(trx, request.workspace.id, objectRefOf(request.params), request.body.recipients),
        );
      return reply.code(204).send(null);
    },
  );
};
