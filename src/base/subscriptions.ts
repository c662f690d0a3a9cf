import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { objectNotFound } from '../entities/object-edits.js';
import { addSubscriptions, readRecipients, removeSubscriptions } from '../entities/subscriptions.js';
import { userNotFound } from '../entities/user-edits.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import { findObject } from '../repositories/objects.js';
import { listSubscribedTo, listSubscribers } from '../repositories/subscriptions.js';
import { findUserByDistinctId } from '../repositories/users.js';
import { iso, NoContent, ref, shortErrors } from '../schemas/common.js';
import { cursorList, CursorQuerySchema } from '../schemas/cursor.js';
import { ObjectParamsSchema, summarizeObject } from '../schemas/objects.js';
import {
  AddSubscriptionsBodySchema,
  AddSubscriptionsResultSchema,
  DeleteSubscriptionsBodySchema,
  SubscribedToSchema,
  SubscriptionSchema,
} from '../schemas/subscriptions.js';
import { DistinctIdParamsSchema } from '../schemas/users.js';

type SubscribedToRow = Awaited<ReturnType<typeof listSubscribedTo>>['results'][number];
const presentSubscribedTo = (row: SubscribedToRow) => ({
  properties: row.properties,
  object: summarizeObject({ ...row, updated_at: row.object_updated_at }),
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

/** Subscriptions: users and child objects subscribed to a parent object, with properties. */
export const subscriptionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['subscriptions'];
  const config = { errorShape: 'short' as const };
  const refOf = (params: { object_type: string; id: string }) => ({ objectType: params.object_type, objectId: params.id });

  app.post(
    '/v1/object/:object_type/:id/subscription/',
    {
      config,
      schema: {
        tags,
        operationId: 'addSubscriptions',
        summary: 'Subscribe users (created when unknown) and child objects to an object',
        params: ObjectParamsSchema,
        body: AddSubscriptionsBodySchema,
        response: { 200: AddSubscriptionsResultSchema, ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const recipients = readRecipients(request.body.recipients);
      const results = await app.db
        .transaction()
        .execute((trx) => addSubscriptions(trx, workspaceOf(request).id, refOf(request.params), recipients, request.body.properties ?? {}));
      return { results };
    },
  );

  app.get(
    '/v1/object/:object_type/:id/subscription/',
    {
      config,
      schema: {
        tags,
        operationId: 'listSubscriptions',
        summary: "List an object's subscribers, oldest subscription first",
        params: ObjectParamsSchema,
        querystring: CursorQuerySchema,
        response: { 200: cursorList(ref(SubscriptionSchema)), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const parent = await findObject(app.db, workspaceOf(request).id, refOf(request.params));
      if (!parent) throw objectNotFound(refOf(request.params));
      const page = await listSubscribers(app.db, parent.id, cursorWindow(request.query));
      const object = summarizeObject(parent);
      return {
        meta: page.meta,
        results: page.results.map((row) => ({
          properties: row.properties,
          user: row.user_distinct_id !== null ? { distinct_id: row.user_distinct_id, updated_at: iso(row.user_updated_at!) } : null,
          object,
          child_object:
            row.child_id !== null
              ? summarizeObject({ object_type: row.child_object_type!, object_id: row.child_id, subscriptions_count: row.child_subscriptions_count!, updated_at: row.child_updated_at! })
              : null,
          created_at: iso(row.created_at),
          updated_at: iso(row.updated_at),
        })),
      };
    },
  );

  app.delete(
    '/v1/object/:object_type/:id/subscription/',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteSubscriptions',
        summary: 'Unsubscribe users and child objects from an object',
        params: ObjectParamsSchema,
        body: DeleteSubscriptionsBodySchema,
        response: { 204: NoContent, ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const recipients = readRecipients(request.body.recipients);
      await app.db.transaction().execute((trx) => removeSubscriptions(trx, workspaceOf(request).id, refOf(request.params), recipients));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/user/:distinct_id/subscribed_to/object/',
    {
      config,
      schema: {
        tags,
        operationId: 'listUserSubscribedTo',
        summary: 'List the objects a user is subscribed to',
        params: DistinctIdParamsSchema,
        querystring: CursorQuerySchema,
        response: { 200: cursorList(ref(SubscribedToSchema)), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const user = await findUserByDistinctId(app.db, workspaceOf(request).id, request.params.distinct_id);
      if (!user) throw userNotFound(request.params.distinct_id);
      const page = await listSubscribedTo(app.db, { userId: user.id }, cursorWindow(request.query));
      return { meta: page.meta, results: page.results.map(presentSubscribedTo) };
    },
  );

  app.get(
    '/v1/object/:object_type/:id/subscribed_to/object/',
    {
      config,
      schema: {
        tags,
        operationId: 'listObjectSubscribedTo',
        summary: 'List the objects an object is subscribed to',
        params: ObjectParamsSchema,
        querystring: CursorQuerySchema,
        response: { 200: cursorList(ref(SubscribedToSchema)), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const object = await findObject(app.db, workspaceOf(request).id, refOf(request.params));
      if (!object) throw objectNotFound(refOf(request.params));
      const page = await listSubscribedTo(app.db, { objectId: object.id }, cursorWindow(request.query));
      return { meta: page.meta, results: page.results.map(presentSubscribedTo) };
    },
  );
};
