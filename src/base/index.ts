import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticateBaseRequest } from '../auth/base-auth.js';
import { withErrorShape } from '../http/error-shape.js';
import { bulkPreferenceRoutes } from './bulk-preferences.js';
import { subscriberListRoutes, userListRoutes } from './subscriber-lists.js';
import { brandRoutes } from './brands.js';
import { userMergeRoutes } from './user-merge.js';
import { tenantPreferenceRoutes } from './tenant-preferences.js';
import { userPreferenceAllRoutes } from './user-preferences-all.js';
import { objectPreferenceRoutes } from './object-preferences.js';
import { subscriberListVersionRoutes } from './subscriber-list-versions.js';
import { eventRoutes } from './events.js';
import { objectRoutes } from './objects.js';
import { segmentRoutes } from './segments.js';
import { subscriptionRoutes } from './subscriptions.js';
import { tenantRoutes } from './tenants.js';
import { userPreferenceRoutes } from './user-preferences.js';
import { baseTemplateRoutes } from './templates.js';
import { userRoutes } from './users.js';
import { triggerRoutes } from './triggers.js';
import { legacyTriggerRoutes } from './legacy-triggers.js';
import { messageRoutes } from './messages.js';
import { broadcastRoutes } from './broadcasts.js';
import { workflowRunRoutes } from './workflow-runs.js';

/**
 * The base surface: application calls, authenticated by API key or signed workspace key, each
 * acting on the credential's workspace. Routes in the order of docs/spec/compat.md, each file with
 * the error shape docs/spec/interface.md §6 gives it.
 */
export const baseTree: FastifyPluginAsyncTypebox = async (app) => {
  const deps = {
    db: app.db,
    credentials: app.credentials,
    secretBox: app.secretBox,
    maxSkewSeconds: app.config.SIGNATURE_MAX_SKEW_SECONDS,
  };
  // After body parsing, before validation: a signature covers the raw body, and no unauthenticated
  // caller learns anything from validation errors.
  app.addHook('preValidation', async (request, reply) => {
    const auth = await authenticateBaseRequest(deps, request).catch(async (error: unknown) => {
      await app.limitFailedAuthentication(request, reply);
      throw error;
    });
    request.auth = auth;
    request.workspace = auth.workspace;
  });

  await app.register(withErrorShape('short', userRoutes));
  await app.register(withErrorShape('short', userMergeRoutes));
  await app.register(withErrorShape('full', eventRoutes));
  await app.register(withErrorShape('full', tenantRoutes));
  await app.register(withErrorShape('full', brandRoutes));
  await app.register(withErrorShape('short', objectRoutes));
  await app.register(withErrorShape('short', subscriptionRoutes));
  await app.register(withErrorShape('short', userPreferenceRoutes));
  await app.register(withErrorShape('short', bulkPreferenceRoutes));
  await app.register(withErrorShape('short', userPreferenceAllRoutes));
  await app.register(withErrorShape('short', tenantPreferenceRoutes));
  await app.register(withErrorShape('short', objectPreferenceRoutes));
  await app.register(withErrorShape('full', segmentRoutes));
  await app.register(withErrorShape('full', subscriberListRoutes));
  await app.register(withErrorShape('full', subscriberListVersionRoutes));
  await app.register(withErrorShape('short', userListRoutes('base')));
  await app.register(withErrorShape('full', baseTemplateRoutes));
  // The trigger calls answer errors in their own `{status: "fail", message}` shape (set per route).
  await app.register(triggerRoutes);
  await app.register(legacyTriggerRoutes);
  await app.register(broadcastRoutes);
  await app.register(withErrorShape('full', messageRoutes));
  await app.register(withErrorShape('full', workflowRunRoutes('base')));
};
