import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { notFound } from '../errors.js';
import { findUserByDistinctId } from '../repositories/users.js';
import { ref, shortErrors } from '../schemas/common.js';
import { DistinctIdParamsSchema, presentUser, UserSchema } from '../schemas/users.js';

/** Users: the people notifications go to, identified by the caller's own distinct_id. */
export const userRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['users'];
  const config = { errorShape: 'short' as const };

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
      if (!user) throw notFound(`user [distinct_id: '${distinct_id}'] not found`);
      return presentUser(user);
    },
  );
};
