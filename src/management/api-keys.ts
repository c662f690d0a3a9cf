import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/request-auth.js';
import { errors, OffsetQuerySchema, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import { ApiKeyParamsSchema, ApiKeySchema, CreateApiKeyBodySchema, CreatedApiKeySchema } from '../schemas/api-keys.js';
import { presentApiKey } from '../presenters/api-keys.js';
import { createApiKey, deleteApiKey, listApiKeys } from '../services/api-keys.js';

/**
 * API keys: the base surface's Bearer credentials. The full key leaves the server once, in the
 * create response; afterwards only its mask is shown, and only its hash is stored.
 */
export const apiKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['api keys'];

  app.get(
    '/v1/:workspace/ws_api_key/',
    {
      schema: {
        tags,
        operationId: 'listApiKeys',
        summary: 'List API keys, oldest first, disabled ones included (masked only)',
        params: WorkspaceParamsSchema,
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(ApiKeySchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listApiKeys(app.db, request.workspace.id, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(presentApiKey) };
    },
  );

  app.post(
    '/v1/:workspace/ws_api_key/',
    {
      schema: {
        tags,
        operationId: 'createApiKey',
        summary: 'Create an API key (the full key is in this response only: sensitive)',
        params: WorkspaceParamsSchema,
        body: CreateApiKeyBodySchema,
        response: { 201: ref(CreatedApiKeySchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { apiKey, ...row } = await createApiKey(app.db, {
        workspaceId: request.workspace.id,
        name: request.body.name,
        description: request.body.description,
        actor: actorOf(request),
      });
      return reply.code(201).send({ ...presentApiKey(row), api_key: apiKey });
    },
  );

  app.delete(
    '/v1/:workspace/ws_api_key/:api_key_id/',
    {
      schema: {
        tags,
        operationId: 'deleteApiKey',
        summary: 'Disable an API key: it fails to authenticate from the next request on',
        params: ApiKeyParamsSchema,
        response: { 204: Type.Null({ description: 'Disabled; empty body' }), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const input = { workspaceId: request.workspace.id, id: request.params.api_key_id, actor: actorOf(request) };
      await deleteApiKey(app.db, app.credentials, input);
      return reply.code(204).send(null);
    },
  );
};
