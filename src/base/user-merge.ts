import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { mergeUsers } from '../services/user-merge.js';
import { ref, shortErrors } from '../schemas/common.js';
import { presentUser } from '../presenters/users.js';
import { DistinctIdParamsSchema, DistinctIdSchema, UserSchema } from '../schemas/users.js';

const MergeUsersBodySchema = Type.Object(
  { from_user_id: { ...DistinctIdSchema, description: 'the secondary user, merged into the primary and deleted' } },
  { additionalProperties: false },
);

/** `POST /v1/user/{id}/merge/`: one person known under two distinct_ids becomes one user. */
export const userMergeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/user/:distinct_id/merge/',
    {
      config: { errorShape: 'short' as const },
      schema: {
        tags: ['users'],
        operationId: 'mergeUsers',
        summary:
          'Merge a user into this one: profile, channels, subscriptions, list memberships, preferences, messages (the inbox feed) and runs still to come move over, in one transaction; the merged user is deleted',
        params: DistinctIdParamsSchema,
        body: MergeUsersBodySchema,
        response: { 201: ref(UserSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const row = await app.db
        .transaction()
        .execute((trx) => mergeUsers(trx, request.workspace.id, request.params.distinct_id, request.body.from_user_id));
      return reply.code(201).send(presentUser(row));
    },
  );
};
