import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  addSubscriptions,
  listObjectSubscribedTo,
  listSubscribers,
  listUserSubscribedTo,
  removeSubscriptions,
} from '../services/subscriptions.js';
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

/** Subscriptions: users and child objects subscribed to a parent object, with properties. */
export const subscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['subscriptions'];
  const refOf = (params: { object_type: string; id: string }) => ({
    objectType: params.object_type,
    objectId: params.id,
  });

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
          addSubscriptions(trx, request.workspace.id, refOf(request.params), recipients, properties ?? {}),
        );
      return { results: added.map(presentAddedSubscription) };
    },
  );

  app.get(
    '/v1/object/:object_type/:id/subscription/',
    {
      schema: {
        tags,
        operationId: 'listSubscriptions',
        summary: "List an object's subscribers, oldest subscription first",
        params: ObjectParamsSchema,
        querystring: CursorQuerySchema,
        response: { 200: cursorList(ref(SubscriptionSchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { parent, page } = await listSubscribers(
        app.db,
        request.workspace.id,
        refOf(request.params),
        request.query,
      );
      return { meta: page.meta, results: page.results.map(presentSubscriber(parent)) };
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
          removeSubscriptions(trx, request.workspace.id, refOf(request.params), request.body.recipients),
        );
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/user/:distinct_id/subscribed_to/object/',
    {
      schema: {
        tags,
        operationId: 'listUserSubscribedTo',
        summary: 'List the objects a user is subscribed to',
        params: DistinctIdParamsSchema,
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
    '/v1/object/:object_type/:id/subscribed_to/object/',
    {
      schema: {
        tags,
        operationId: 'listObjectSubscribedTo',
        summary: 'List the objects an object is subscribed to',
        params: ObjectParamsSchema,
        querystring: CursorQuerySchema,
        response: { 200: cursorList(ref(SubscribedToSchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const page = await listObjectSubscribedTo(app.db, request.workspace.id, refOf(request.params), request.query);
      return { meta: page.meta, results: page.results.map(presentSubscribedTo) };
    },
  );
};
