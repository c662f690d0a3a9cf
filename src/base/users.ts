import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { applyOperations, applyUpsert, type EntityState } from '../entities/operations.js';
import { changeUsers, userNotFound } from '../entities/user-edits.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import { deleteUsers, findUserByDistinctId, listUsers } from '../repositories/users.js';
import { NoContent, ref, shortErrors } from '../schemas/common.js';
import { cursorList, CursorQuerySchema } from '../schemas/cursor.js';
import { EditBodySchema, EntityUpsertBodySchema } from '../schemas/entity-operations.js';
import { BulkDeleteUsersBodySchema, DistinctIdParamsSchema, presentUser, UserSchema } from '../schemas/users.js';

/** Users: the people notifications go to, identified by the caller's own distinct_id. */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users'];
  const config = { errorShape: 'short' as const };

  app.get(
    '/v1/user/',
    {
      config,
      schema: {
        tags,
        operationId: 'listUsers',
        summary: 'List users, oldest first (cursor pagination)',
        querystring: CursorQuerySchema,
        response: { 200: cursorList(ref(UserSchema)), ...shortErrors(400, 401) },
      },
    },
    async (request) => {
      const page = await listUsers(app.db, workspaceOf(request).id, cursorWindow(request.query));
      return { meta: page.meta, results: page.results.map(presentUser) };
    },
  );

  app.get(
    '/v1/user/:distinct_id/',
    {
      config,
      schema: {
        tags,
        operationId: 'getUser',
        summary: 'Fetch a user',
        params: DistinctIdParamsSchema,
        response: { 200: ref(UserSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { distinct_id } = request.params;
      const user = await findUserByDistinctId(app.db, workspaceOf(request).id, distinct_id);
      if (!user) throw userNotFound(distinct_id);
      return presentUser(user);
    },
  );

  app.post(
    '/v1/user/:distinct_id/',
    {
      config,
      schema: {
        tags,
        operationId: 'upsertUser',
        summary: 'Create or update a user: channel keys add entries, other keys set properties',
        params: DistinctIdParamsSchema,
        body: EntityUpsertBodySchema,
        response: { 201: ref(UserSchema), ...shortErrors(400, 401) },
      },
    },
    async (request, reply) => {
      const { distinct_id } = request.params;
      const users = await app.db
        .transaction()
        .execute((trx) => changeUsers(trx, workspaceOf(request).id, [{ distinctId: distinct_id, apply: (s) => applyUpsert(s, request.body) }], { create: true }));
      return reply.code(201).send(presentUser(users.get(distinct_id)!));
    },
  );

  app.patch(
    '/v1/user/:distinct_id/',
    {
      config,
      schema: {
        tags,
        operationId: 'editUser',
        summary: 'Edit a user with operations ($set, $set_once, $add, $append, $remove, $unset)',
        params: DistinctIdParamsSchema,
        body: EditBodySchema,
        response: { 202: ref(UserSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { distinct_id } = request.params;
      const change = { distinctId: distinct_id, apply: (s: EntityState) => applyOperations(s, request.body.operations, 'operations') };
      const users = await app.db.transaction().execute((trx) => changeUsers(trx, workspaceOf(request).id, [change], { create: false }));
      return reply.code(202).send(presentUser(users.get(distinct_id)!));
    },
  );

  app.delete(
    '/v1/user/:distinct_id/',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteUser',
        summary: 'Delete a user with its channels, preferences and subscriptions',
        params: DistinctIdParamsSchema,
        response: { 204: NoContent, ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { distinct_id } = request.params;
      const deleted = await deleteUsers(app.db, workspaceOf(request).id, [distinct_id]);
      if (deleted === 0) throw userNotFound(distinct_id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/bulk/user/',
    {
      config,
      schema: {
        tags,
        operationId: 'bulkDeleteUsers',
        summary: 'Delete many users; distinct_ids that name no user are skipped',
        body: BulkDeleteUsersBodySchema,
        response: { 204: NoContent, ...shortErrors(400, 401) },
      },
    },
    async (request, reply) => {
      await deleteUsers(app.db, workspaceOf(request).id, request.body.distinct_ids);
      return reply.code(204).send(null);
    },
  );
};
