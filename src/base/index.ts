import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticateBaseRequest } from '../auth/base-auth.js';
import { segmentRoutes } from './segments.js';
import { userRoutes } from './users.js';
import { eventRoutes } from './events.js';
import { tenantRoutes } from './tenants.js';
import { objectRoutes } from './objects.js';
import { subscriptionRoutes } from './subscriptions.js';
import { userPreferenceRoutes } from './user-preferences.js';
import { bulkPreferenceRoutes } from './bulk-preferences.js';

/** The base surface: application calls, authenticated by API key or signed workspace key. Routes, in the order of compat.md. */
export const baseTree: FastifyPluginAsyncTypebox = async (app) => {
  // After body parsing, before validation: a signature covers the raw body, and no unauthenticated
  // caller learns anything from validation errors.
  app.addHook('preValidation', async (request) => {
    request.auth = await authenticateBaseRequest(
      { db: app.db, credentials: app.credentials, secretBox: app.secretBox, maxSkewSeconds: app.config.SIGNATURE_MAX_SKEW_SECONDS },
      request,
    );
  });

  await app.register(userRoutes);
  await app.register(eventRoutes);
  await app.register(tenantRoutes);
  await app.register(objectRoutes);
  await app.register(subscriptionRoutes);
  await app.register(userPreferenceRoutes);
  await app.register(bulkPreferenceRoutes);
  await app.register(segmentRoutes);
};
