import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { surfaceOperation, surfaceParams, surfacePath, surfaceTags, type Surface } from '../http/surfaces.js';
import { deleteUser, deleteUsers, editUser, getUser, listUsers, upsertUser } from '../services/users.js';
import { NoContent, ref, errors } from '../schemas/common.js';
import { cursorList, CursorQuerySchema } from '../schemas/cursor.js';
import { EditBodySchema, EntityUpsertBodySchema } from '../schemas/entity-operations.js';
import { BulkDeleteUsersBodySchema, DistinctIdParamsSchema, UserSchema } from '../schemas/users.js';
import { presentUser } from '../presenters/users.js';

/** The user list with its distinct_id prefix search (the console's), on the base surface and as its management twin. */
export const UserListQuerySchema = Type.Composite([
  CursorQuerySchema,
  Type.Object({
    distinct_id_prefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'only users whose distinct_id starts with this (ours)',
      }),
    ),
  }),
]);

/**
 * The user reads: the list and one user, on the base surface and, as their management twin, under
 * `/management/v1/{workspace}/` (docs/management-twins.md).
 */
export const userReadRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'users');

    app.get(
      surfacePath(surface, '/user/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listUsers'),
          summary: 'List users, oldest first (cursor pagination), optionally by distinct_id prefix',
          params: surfaceParams(surface, {}),
          querystring: UserListQuerySchema,
          response: { 200: cursorList(ref(UserSchema)), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        const page = await listUsers(app.db, request.workspace.id, request.query);
        return { meta: page.meta, results: page.results.map(presentUser) };
      },
    );

    app.get(
      surfacePath(surface, '/user/:distinct_id/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'getUser'),
          summary: 'Fetch a user',
          params: surfaceParams(surface, DistinctIdParamsSchema.properties),
          response: { 200: ref(UserSchema), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        return presentUser(await getUser(app.db, request.workspace.id, request.params.distinct_id));
      },
    );
  };

/** Users: the people notifications go to, identified by the caller's own distinct_id. */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users'];
  await app.register(userReadRoutes('base'));

  app.post(
    '/v1/user/:distinct_id/',
    {
      schema: {
        tags,
        operationId: 'upsertUser',
        summary: 'Create or update a user: channel keys add entries, other keys set properties',
        params: DistinctIdParamsSchema,
        body: EntityUpsertBodySchema,
        response: { 201: ref(UserSchema), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const user = await app.db
        .transaction()
        .execute((trx) => upsertUser(trx, request.workspace.id, request.params.distinct_id, request.body));
      return reply.code(201).send(presentUser(user));
    },
  );

  app.patch(
    '/v1/user/:distinct_id/',
    {
      schema: {
        tags,
        operationId: 'editUser',
        summary: 'Edit a user with operations ($set, $set_once, $add, $append, $remove, $unset)',
        params: DistinctIdParamsSchema,
        body: EditBodySchema,
        response: { 202: ref(UserSchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const user = await app.db
        .transaction()
        .execute((trx) => editUser(trx, request.workspace.id, request.params.distinct_id, request.body.operations));
      return reply.code(202).send(presentUser(user));
    },
  );

  app.delete(
    '/v1/user/:distinct_id/',
    {
      schema: {
        tags,
        operationId: 'deleteUser',
        summary: 'Delete a user with its channels, preferences and subscriptions',
        params: DistinctIdParamsSchema,
        response: { 204: NoContent, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteUser(app.db, request.workspace.id, request.params.distinct_id);
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/bulk/user/',
    {
      schema: {
        tags,
        operationId: 'bulkDeleteUsers',
        summary: 'Delete many users; distinct_ids that name no user are skipped',
        body: BulkDeleteUsersBodySchema,
        response: { 204: NoContent, ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      await deleteUsers(app.db, request.workspace.id, request.body.distinct_ids);
      return reply.code(204).send(null);
    },
  );
};
