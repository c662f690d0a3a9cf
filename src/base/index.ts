import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authenticateBaseRequest } from '../auth/api-key-auth.js';
import { segmentRoutes } from './segments.js';
import { userRoutes } from './users.js';

/** The base surface: application calls, authenticated by API key. Routes, in the order of compat.md. */
export const baseTree: FastifyPluginAsyncTypebox = async (app) => {
  // After body parsing, before validation: a signature covers the raw body, and no unauthenticated
  // caller learns anything from validation errors.
  app.addHook('preValidation', async (request) => {
    request.auth = await authenticateBaseRequest(app.db, request);
  });

  await app.register(userRoutes);
  await app.register(segmentRoutes);
};
