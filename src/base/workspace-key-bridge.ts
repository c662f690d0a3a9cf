import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { serviceTokenSteps } from '../auth/service-token-auth.js';
import { withErrorShape } from '../http/error-shape.js';
import { errors, WorkspaceParamsSchema } from '../schemas/common.js';
import { WorkspaceKeyBridgeSchema, SERVICE_TOKEN_SECURITY } from '../schemas/workspace-keys.js';
import { defaultWorkspaceKeyPair } from '../services/workspace-keys.js';

/**
 * `GET /v1/{workspace}/ws_key/bridge/`: what the hosted platform's CLI (`suprsend`) calls on its hub
 * URL to turn a service token into the workspace's key pair, which its backend SDK then signs with.
 * It sits beside the base surface (the CLI's hub URL is Herald's root) but authenticates as the
 * management surface does: `Authorization: ServiceToken <TOKEN>`, then the `{workspace}` slug.
 */
const bridgeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = { db: app.db, credentials: app.credentials };
  const { authenticate, resolveWorkspace } = serviceTokenSteps(deps, (request, reply) =>
    app.limitFailedAuthentication(request, reply),
  );
  app.addHook('onRequest', async (request, reply) => {
    request.auth = await authenticate(request, reply);
    request.workspace = await resolveWorkspace(request, reply);
  });

  app.get(
    '/v1/:workspace/ws_key/bridge/',
    {
      schema: {
        tags: ['workspace keys'],
        operationId: 'bridgeWorkspaceKey',
        summary: "The workspace's default key pair for a service token (the hosted platform's CLI calls it)",
        description:
          'Sensitive: the answer carries the key and secret in full. Authenticated by `ServiceToken`, ' +
          'as the management surface; served at the root because the CLI calls it on its hub URL.',
        security: SERVICE_TOKEN_SECURITY,
        params: WorkspaceParamsSchema,
        response: { 200: WorkspaceKeyBridgeSchema, ...errors(401, 404) },
      },
    },
    async (request) => defaultWorkspaceKeyPair(app.db, app.secretBox, request.workspace.id),
  );
};

export const workspaceKeyBridgeRoutes = withErrorShape('full', bridgeRoutes);
