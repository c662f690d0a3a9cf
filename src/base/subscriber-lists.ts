import { EmptyBodySchema } from '../schemas/empty-body.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { surfaceOperation, surfaceParams, surfacePath, surfaceTags, type Surface } from '../http/surfaces.js';
import { presentList } from '../presenters/subscriber-lists.js';
import { notFoundErrors } from '../errors.js';
import { addListMembers, listNotFound, removeListMembers } from '../services/subscriber-lists.js';
import { fullErrors, iso, OffsetQuerySchema, offsetList, ref, shortErrors } from '../schemas/common.js';
import { cursorList, CursorQuerySchema } from '../schemas/cursor.js';
import {
  CreateListBodySchema,
  ListMembersBodySchema,
  ListParamsSchema,
  ListSubscriberSchema,
  MembershipChangeSchema,
  SubscribedToListSchema,
  SubscriberListSchema,
  SuccessSchema,
} from '../schemas/subscriber-lists.js';
import { DistinctIdParamsSchema } from '../schemas/users.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import { deleteList, findList, listLists, upsertList } from '../repositories/subscriber-lists.js';
import { findUserByDistinctId } from '../repositories/users.js';
import { listListsOfUser, listMembers } from '../repositories/list-members.js';

/**
 * The list reads: the lists, one list and its members, on the base surface and, as their management twin, under `/management/v1/{workspace}/`
 * (docs/management-twins.md).
 */
export const subscriberListReadRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'subscriber lists');

    app.get(
      surfacePath(surface, '/subscriber_list/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listSubscriberLists'),
          params: surfaceParams(surface, {}),
          summary: 'List the lists, oldest first',
          querystring: OffsetQuerySchema,
          response: { 200: offsetList(ref(SubscriberListSchema)), ...fullErrors(400, 401, 404) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const { rows, count } = await listLists(app.db, request.workspace.id, { limit, offset });
        return { meta: { count, limit, offset }, results: rows.map(presentList) };
      },
    );

    app.get(
      surfacePath(surface, '/subscriber_list/:list_id/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'getSubscriberList'),
          summary: 'Fetch a list, with its member count and draft versions',
          params: surfaceParams(surface, ListParamsSchema.properties),
          response: { 200: ref(SubscriberListSchema), ...fullErrors(400, 401, 404) },
        },
      },
      async (request) => {
        const row = await findList(app.db, request.workspace.id, request.params.list_id);
        if (!row) throw listNotFound(request.params.list_id);
        return presentList(row);
      },
    );

    app.get(
      surfacePath(surface, '/subscriber_list/:list_id/subscriber/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listSubscriberListMembers'),
          summary: "List the live list's members, oldest membership first",
          params: surfaceParams(surface, ListParamsSchema.properties),
          querystring: CursorQuerySchema,
          response: { 200: cursorList(ref(ListSubscriberSchema)), ...fullErrors(400, 401, 404) },
        },
      },
      async (request) => {
        const workspaceId = request.workspace.id;
        const list = await findList(app.db, workspaceId, request.params.list_id);
        if (!list) throw listNotFound(request.params.list_id);
        const page = await listMembers(
          app.db,
          { workspaceId, listPk: list.id, versionPk: null },
          cursorWindow(request.query),
        );
        return {
          meta: page.meta,
          results: page.results.map((row) => ({
            id: String(row.id),
            distinct_id: row.distinct_id,
            created_at: iso(row.created_at),
          })),
        };
      },
    );
  };

/** Subscriber lists: named, static sets of users that broadcasts go to; their versioned sync is in subscriber-list-versions.ts. */
export const subscriberListRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['subscriber lists'];
  await app.register(subscriberListReadRoutes('base'));

  app.post(
    '/v1/subscriber_list/',
    {
      schema: {
        tags,
        operationId: 'createSubscriberList',
        summary: 'Create a list (or update the fields given when it exists)',
        body: CreateListBodySchema,
        response: { 201: ref(SubscriberListSchema), ...fullErrors(400, 401) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const row = await upsertList(app.db, request.workspace.id, {
        listId: body.list_id,
        listName: body.list_name,
        listDescription: body.list_description,
        trackUserEntry: body.track_user_entry,
        trackUserExit: body.track_user_exit,
      });
      return reply.code(201).send(presentList(row));
    },
  );

  app.patch(
    '/v1/subscriber_list/:list_id/delete/',
    {
      schema: {
        tags,
        operationId: 'deleteSubscriberList',
        body: EmptyBodySchema,
        summary: 'Delete a list, its members and its drafts (at once, ours)',
        params: ListParamsSchema,
        response: { 200: SuccessSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      if (!(await deleteList(app.db, request.workspace.id, request.params.list_id)))
        throw listNotFound(request.params.list_id);
      return { success: true as const };
    },
  );

  for (const [action, operationId, summary] of [
    ['add', 'addSubscriberListMembers', 'Add users to the list (unknown users are created)'],
    ['remove', 'removeSubscriberListMembers', 'Remove users from the list (users not in it are skipped)'],
  ] as const) {
    app.post(
      `/v1/subscriber_list/:list_id/subscriber/${action}/`,
      {
        schema: {
          tags,
          operationId,
          summary,
          params: ListParamsSchema,
          body: ListMembersBodySchema,
          response: { 201: MembershipChangeSchema, ...fullErrors(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const change = action === 'add' ? addListMembers : removeListMembers;
        const affected = await app.db
          .transaction()
          .execute((trx) =>
            change(trx, request.workspace.id, { listId: request.params.list_id }, request.body.distinct_ids),
          );
        return reply.code(201).send({ success: true as const, affected_count: affected });
      },
    );
  }
};

/** The lists a user belongs to: a user endpoint, in the short error shape; on the base surface and as its management twin. */
export const userListRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'subscriber lists');

    app.get(
      surfacePath(surface, '/user/:distinct_id/subscribed_to/list/'),
      {
        config: { errorShape: 'short' as const },
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listUserSubscribedToLists'),
          summary: 'List the lists a user belongs to, oldest membership first',
          params: surfaceParams(surface, DistinctIdParamsSchema.properties),
          querystring: CursorQuerySchema,
          response: { 200: cursorList(ref(SubscribedToListSchema)), ...shortErrors(400, 401, 404) },
        },
      },
      async (request) => {
        const user = await findUserByDistinctId(app.db, request.workspace.id, request.params.distinct_id);
        if (!user) throw notFoundErrors.user(request.params.distinct_id);
        const page = await listListsOfUser(app.db, user.id, cursorWindow(request.query));
        return {
          meta: page.meta,
          results: page.results.map((row) => ({
            list: {
              list_id: row.list_id,
              list_name: row.list_name,
              list_description: row.list_description,
              list_type: 'static_list' as const,
              source: row.source,
              subscribers_count: row.subscribers_count,
              updated_at: iso(row.updated_at),
            },
            created_at: iso(row.created_at),
          })),
        };
      },
    );
  };
