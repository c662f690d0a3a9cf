import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../schemas/common.js';
import {
  BulkPreferencesBodySchema,
  ResetPreferencesBodySchema,
  SuccessSchema,
  TenantQuerySchema,
} from '../schemas/preferences.js';
import { resetPreferences, updateUsersPreferences } from '../services/user-preferences.js';

/** Preferences of many users at once (docs/spec/interface.md §3): one transaction, a fixed number of statements. */
export const bulkPreferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['user preferences'];

  app.patch(
    '/v1/bulk/user/preference/',
    {
      schema: {
        tags,
        operationId: 'bulkUpdateUserPreferences',
        summary:
          'Set channel restrictions and category choices of 1 to 100 users in a tenant (unknown users are created)',
        description: 'What the request names is set; what it does not name is kept.',
        querystring: TenantQuerySchema,
        body: BulkPreferencesBodySchema,
        response: { 202: SuccessSchema, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await app.db
        .transaction()
        .execute((trx) => updateUsersPreferences(trx, request.workspace.id, request.query.tenant_id, request.body));
      return reply.code(202).send({ success: true });
    },
  );

  app.patch(
    '/v1/bulk/user/preference/reset/',
    {
      schema: {
        tags,
        operationId: 'resetUserPreferences',
        summary:
          "Forget 1 to 100 users' channel restrictions and/or category choices in a tenant (back to the defaults)",
        querystring: TenantQuerySchema,
        body: ResetPreferencesBodySchema,
        response: { 202: SuccessSchema, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { distinct_ids, reset_channel_preferences, reset_categories } = request.body;
      await app.db.transaction().execute((trx) =>
        resetPreferences(trx, request.workspace.id, request.query.tenant_id, distinct_ids, {
          channels: reset_channel_preferences,
          categories: reset_categories,
        }),
      );
      return reply.code(202).send({ success: true });
    },
  );
};
