import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { listWorkspaceKeys } from '../repositories/workspace-keys.js';
import { fullErrors, OffsetQuerySchema, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import { presentWorkspaceKey, WorkspaceKeySchema } from '../schemas/workspace-keys.js';

/** Workspace key/secret pairs: what backend SDKs sign requests with. */
export const workspaceKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['workspace keys'];

  app.get(
    '/v1/:workspace/ws_key/',
    {
      schema: {
        tags,
        operationId: 'listWorkspaceKeys',
        summary: 'List workspace keys (key and secret in full: sensitive)',
        params: WorkspaceParamsSchema,
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(WorkspaceKeySchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listWorkspaceKeys(app.db, workspaceOf(request).id, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map((row) => presentWorkspaceKey(row, app.secretBox)) };
    },
  );
};
