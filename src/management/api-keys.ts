import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, workspaceOf } from '../auth/request-auth.js';
import { isPrefixedId } from '../auth/tokens.js';
import { notFound } from '../errors.js';
import { credentialTag } from '../auth/credential-cache.js';
import { changeCredentials } from '../auth/credential-changes.js';
import { API_KEY_ID_PREFIX, createApiKey, disableApiKey, listApiKeys } from '../repositories/api-keys.js';
import { fullErrors, OffsetQuerySchema, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import { ApiKeyParamsSchema, ApiKeySchema, CreateApiKeyBodySchema, CreatedApiKeySchema, presentApiKey } from '../schemas/api-keys.js';

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
        response: { 200: offsetList(ref(ApiKeySchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listApiKeys(app.db, workspaceOf(request).id, { limit, offset });
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
        response: { 201: ref(CreatedApiKeySchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { apiKey, ...row } = await createApiKey(app.db, {
        workspaceId: workspaceOf(request).id,
        name: request.body.name,
        description: request.body.description,
        createdBy: actorOf(request),
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
        response: { 204: Type.Null({ description: 'Disabled; empty body' }), ...fullErrors(401, 404) },
      },
    },
    async (request, reply) => {
      const { api_key_id: id } = request.params;
      const workspaceId = workspaceOf(request).id;
      // The key fails from the next request on, on every instance: its cached lookups are dropped here and announced.
      const disabled =
        isPrefixedId(API_KEY_ID_PREFIX, id) &&
        (await changeCredentials(app.db, app.credentials, async (trx) => {
          const value = await disableApiKey(trx, { workspaceId, id, deletedBy: actorOf(request) });
          return { value, changed: value ? [credentialTag(id)] : [] };
        }));
      if (!disabled) throw notFound(`API key '${id}' not found`);
      return reply.code(204).send(null);
    },
  );
};
