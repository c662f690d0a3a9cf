import { EmptyBodySchema } from '../schemas/empty-body.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { presentList, presentListVersion } from '../presenters/subscriber-lists.js';
import {
  addListMembers,
  deleteListVersion,
  finishListSync,
  listNotFound,
  removeListMembers,
  startListSync,
  versionNotFound,
} from '../services/subscriber-lists.js';
import { fullErrors, ref } from '../schemas/common.js';
import {
  ListMembersBodySchema,
  ListParamsSchema,
  ListVersionParamsSchema,
  MembershipChangeSchema,
  SubscriberListSchema,
  SubscriberListVersionSchema,
  SuccessSchema,
} from '../schemas/subscriber-lists.js';
import { findList, findListVersion } from '../repositories/subscriber-lists.js';

/**
 * The versioned sync of a list: start_sync opens an empty draft version, the caller fills it, and
 * finish_sync makes its members the live ones in one transaction (a reader sees the old members or
 * the new, never a mix). Several drafts may exist; each is finished or deleted on its own.
 */
export const subscriberListVersionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['subscriber lists'];

  app.post(
    '/v1/subscriber_list/:list_id/start_sync/',
    {
      schema: {
        tags,
        operationId: 'startSubscriberListSync',
        body: EmptyBodySchema,
        summary: 'Open an empty draft version of the list',
        params: ListParamsSchema,
        response: { 201: ref(SubscriberListVersionSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = request.workspace.id;
      const { list_id } = request.params;
      const version = await app.db.transaction().execute((trx) => startListSync(trx, workspaceId, list_id));
      const row = await findList(app.db, workspaceId, list_id);
      if (!row) throw listNotFound(list_id);
      return reply.code(201).send(presentListVersion(row, { version_id: version.version_id, subscribers_count: 0 }));
    },
  );

  app.get(
    '/v1/subscriber_list/:list_id/version/:version_id/',
    {
      schema: {
        tags,
        operationId: 'getSubscriberListVersion',
        summary: 'Fetch a draft version of the list, with its member count',
        params: ListVersionParamsSchema,
        response: { 200: ref(SubscriberListVersionSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { list_id, version_id } = request.params;
      const row = await findListVersion(app.db, request.workspace.id, list_id, version_id);
      if (!row) throw versionNotFound(list_id, version_id);
      return presentListVersion(row, { version_id: row.version_id, subscribers_count: row.version_count });
    },
  );

  for (const [action, operationId, summary] of [
    ['add', 'addSubscriberListVersionMembers', 'Add users to a draft version (unknown users are created)'],
    ['remove', 'removeSubscriberListVersionMembers', 'Remove users from a draft version'],
  ] as const) {
    app.post(
      `/v1/subscriber_list/:list_id/version/:version_id/subscriber/${action}/`,
      {
        schema: {
          tags,
          operationId,
          summary,
          params: ListVersionParamsSchema,
          body: ListMembersBodySchema,
          response: { 201: MembershipChangeSchema, ...fullErrors(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const { list_id, version_id } = request.params;
        const change = action === 'add' ? addListMembers : removeListMembers;
        const affected = await app.db
          .transaction()
          .execute((trx) =>
            change(trx, request.workspace.id, { listId: list_id, versionId: version_id }, request.body.distinct_ids),
          );
        return reply.code(201).send({ success: true as const, affected_count: affected });
      },
    );
  }

  app.patch(
    '/v1/subscriber_list/:list_id/version/:version_id/finish_sync/',
    {
      schema: {
        tags,
        operationId: 'finishSubscriberListSync',
        body: EmptyBodySchema,
        summary: "Make the draft version's members the live ones, atomically, and drop the draft",
        params: ListVersionParamsSchema,
        response: { 201: ref(SubscriberListSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = request.workspace.id;
      const { list_id, version_id } = request.params;
      await app.db.transaction().execute((trx) => finishListSync(trx, workspaceId, list_id, version_id));
      const row = await findList(app.db, workspaceId, list_id);
      if (!row) throw listNotFound(list_id);
      return reply.code(201).send(presentList(row));
    },
  );

  app.patch(
    '/v1/subscriber_list/:list_id/version/:version_id/delete/',
    {
      schema: {
        tags,
        operationId: 'deleteSubscriberListVersion',
        body: EmptyBodySchema,
        summary: 'Drop a draft version; the live list is unchanged',
        params: ListVersionParamsSchema,
        response: { 200: SuccessSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { list_id, version_id } = request.params;
      await app.db.transaction().execute((trx) => deleteListVersion(trx, request.workspace.id, list_id, version_id));
      return { success: true as const };
    },
  );
};
