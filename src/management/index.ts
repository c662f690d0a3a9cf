import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiKeyRoutes } from './api-keys.js';
import { authenticateManagementRequest } from '../auth/service-token-auth.js';
import { preferenceCategoryRoutes } from './preference-categories.js';
import { translationRoutes } from './translations.js';
import { workflowCommitRoutes } from './workflow-commits.js';
import { workflowRoutes } from './workflows.js';
import { workspaceKeyRoutes } from './workspace-keys.js';
import { workspaceRoutes } from './workspaces.js';

/** The management surface: ops calls, authenticated by service token, scoped by `{workspace}`. */
export const managementTree: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', async (request) => {
    request.auth = await authenticateManagementRequest({ db: app.db, credentials: app.credentials }, request);
  });

  await app.register(workspaceRoutes);
  await app.register(workspaceKeyRoutes);
  await app.register(apiKeyRoutes);
  await app.register(preferenceCategoryRoutes);
  await app.register(workflowRoutes);
  await app.register(workflowCommitRoutes);
  await app.register(translationRoutes);
};
