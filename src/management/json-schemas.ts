import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  PREFERENCE_CATEGORY_SCHEMA_PATH,
  preferenceCategoryJsonSchema,
  preferenceCategorySchemaUrl,
} from '../schemas/preference-categories.js';

/**
 * JSON Schemas that definitions point to with `$schema`. Served without authentication: editors
 * fetch them without credentials, and they describe structure only, never workspace data.
 * Registered beside the management tree (same prefix), outside its service-token hook.
 */
export const jsonSchemaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const preferenceCategory = preferenceCategoryJsonSchema(preferenceCategorySchemaUrl(app.config));

  app.get(
    PREFERENCE_CATEGORY_SCHEMA_PATH,
    {
      schema: {
        tags: ['preference categories'],
        operationId: 'getPreferenceCategoryJsonSchema',
        summary: 'JSON Schema of a preference category definition (public, no authentication)',
        security: [],
        response: { 200: Type.Object({}, { additionalProperties: true, description: 'a JSON Schema (draft-07)' }) },
      },
    },
    async (_request, reply) => reply.type('application/schema+json').send(preferenceCategory),
  );
};
