import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiKeyRoutes } from './api-keys.js';
import { authenticateManagementRequest } from '../auth/service-token-auth.js';
import { workspaceKeyRoutes } from './workspace-keys.js';
import { workspaceRoutes } from './workspaces.js';

/** The management surface: ops calls, authenticated by service token, scoped by `{workspace}`. */
export const managementTree: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', async (request) => {
    request.auth = await authenticateManagementRequest(app.db, request);
  });

  await app.register(workspaceRoutes);
  await app.register(workspaceKeyRoutes);
  await app.register(apiKeyRoutes);
};
