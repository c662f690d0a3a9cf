import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { categoriesOf } from '../configuration/preference-category-rules.js';
import { beginPreferenceWrite, resetPreferences, writePreferences } from '../entities/user-preferences.js';
import { badRequest } from '../errors.js';
import { readCategoryChoices, readChannelPreferences } from '../preferences/update-input.js';
import { shortErrors } from '../schemas/common.js';
import { BulkPreferencesBodySchema, ResetPreferencesBodySchema, SuccessSchema, TenantQuerySchema } from '../schemas/preferences.js';

/** Preferences of many users at once (interface.md §3): one transaction, a fixed number of statements. */
export const bulkPreferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['user preferences'];
  const config = { errorShape: 'short' as const };

  app.patch(
    '/v1/bulk/user/preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'bulkUpdateUserPreferences',
        summary: 'Set channel restrictions and category choices of 1 to 100 users in a tenant (unknown users are created)',
        description: 'What the request names is set; what it does not name is kept.',
        querystring: TenantQuerySchema,
        body: BulkPreferencesBodySchema,
        response: { 202: SuccessSchema, ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { tenant_id } = request.query;
      const { distinct_ids, channel_preferences, categories } = request.body;
      await app.db.transaction().execute(async (trx) => {
        const roots = await beginPreferenceWrite(trx, workspaceId, tenant_id);
        const slugs = new Set(categoriesOf(roots).map((category) => category.category));
        const update = {
          channels: readChannelPreferences(channel_preferences ?? [], 'channel_preferences'),
          categories: readCategoryChoices(categories ?? [], slugs, 'categories'),
        };
        await writePreferences(trx, workspaceId, tenant_id, distinct_ids, update);
      });
      return reply.code(202).send({ success: true });
    },
  );

  app.patch(
    '/v1/bulk/user/preference/reset/',
    {
      config,
      schema: {
        tags,
        operationId: 'resetUserPreferences',
        summary: "Forget 1 to 100 users' channel restrictions and/or category choices in a tenant (back to the defaults)",
        querystring: TenantQuerySchema,
        body: ResetPreferencesBodySchema,
        response: { 202: SuccessSchema, ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { distinct_ids, reset_channel_preferences, reset_categories } = request.body;
      if (!reset_channel_preferences && !reset_categories) {
        throw badRequest('nothing to reset: reset_channel_preferences and reset_categories are both false', { reset_categories: 'is false' });
      }
      await app.db
        .transaction()
        .execute((trx) => resetPreferences(trx, workspaceOf(request).id, request.query.tenant_id, distinct_ids, { channels: reset_channel_preferences, categories: reset_categories }));
      return reply.code(202).send({ success: true });
    },
  );
};
