import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { beginPreferenceWrite, categoryNotFound, loadPreferenceState, readUserPreferences, writePreferences } from '../entities/user-preferences.js';
import { evaluate, ROOT_CATEGORY } from '../preferences/evaluate.js';
import { findCategory, presentCategory, presentChannelPreferences, presentUserPreferences } from '../preferences/present.js';
import { readCategoryChoice, readChannel, readChannelPreferences } from '../preferences/update-input.js';
import { ref, shortErrors } from '../schemas/common.js';
import { ROOT_CATEGORIES } from '../schemas/preference-categories.js';
import {
  CategoryParamsSchema,
  CategoryPreferenceBodySchema,
  CategoryPreferenceSchema,
  ChannelPreferencesBodySchema,
  ChannelPreferencesSchema,
  EvaluateQuerySchema,
  PreferenceEvaluationSchema,
  TenantQuerySchema,
  UserPreferenceParamsSchema,
  UserPreferencesSchema,
} from '../schemas/preferences.js';

/** One user's preferences in a tenant (compat.md, User preferences), and the evaluate endpoint (ours). */
export const userPreferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['user preferences'];
  const config = { errorShape: 'short' as const };
  const errors = shortErrors(400, 401, 404);

  app.get(
    '/v1/user/:distinct_id/preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'getUserPreferences',
        summary: "A user's preferences in a tenant: every category of the live definition, and the channel restrictions",
        params: UserPreferenceParamsSchema,
        querystring: TenantQuerySchema,
        response: { 200: ref(UserPreferencesSchema), ...errors },
      },
    },
    async (request) => {
      const { roots, state } = await readUserPreferences(app.db, workspaceOf(request).id, request.query.tenant_id, request.params.distinct_id);
      return presentUserPreferences(roots, state);
    },
  );

  app.get(
    '/v1/user/:distinct_id/preference/category/:category/',
    {
      config,
      schema: {
        tags,
        operationId: 'getUserCategoryPreference',
        summary: "A user's preference for one category in a tenant",
        params: CategoryParamsSchema,
        querystring: TenantQuerySchema,
        response: { 200: ref(CategoryPreferenceSchema), ...errors },
      },
    },
    async (request) => {
      const { distinct_id, category: slug } = request.params;
      const { roots, state } = await readUserPreferences(app.db, workspaceOf(request).id, request.query.tenant_id, distinct_id);
      const category = findCategory(roots, slug);
      if (!category) throw categoryNotFound(slug);
      return presentCategory(category, state);
    },
  );

  app.patch(
    '/v1/user/:distinct_id/preference/category/:category/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateUserCategoryPreference',
        summary: "Set a user's choice for one category in a tenant (fields left out are kept; an unknown user is created)",
        params: CategoryParamsSchema,
        querystring: TenantQuerySchema,
        body: CategoryPreferenceBodySchema,
        response: { 202: ref(CategoryPreferenceSchema), ...errors },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { distinct_id, category: slug } = request.params;
      const { tenant_id } = request.query;
      const result = await app.db.transaction().execute(async (trx) => {
        const category = findCategory(await beginPreferenceWrite(trx, workspaceId, tenant_id), slug);
        if (!category) throw categoryNotFound(slug);
        const update = { channels: [], categories: [readCategoryChoice(slug, request.body, '')] };
        const users = await writePreferences(trx, workspaceId, tenant_id, [distinct_id], update);
        return presentCategory(category, await loadPreferenceState(trx, users.get(distinct_id)!, tenant_id));
      });
      return reply.code(202).send(result);
    },
  );

  app.get(
    '/v1/user/:distinct_id/preference/channel_preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'getUserChannelPreferences',
        summary: "A user's channel restrictions in a tenant (every channel)",
        params: UserPreferenceParamsSchema,
        querystring: TenantQuerySchema,
        response: { 200: ChannelPreferencesSchema, ...errors },
      },
    },
    async (request) => {
      const { state } = await readUserPreferences(app.db, workspaceOf(request).id, request.query.tenant_id, request.params.distinct_id);
      return { channel_preferences: presentChannelPreferences(state) };
    },
  );

  app.patch(
    '/v1/user/:distinct_id/preference/channel_preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateUserChannelPreferences',
        summary: "Restrict or allow channels for a user in a tenant (channels left out are kept; an unknown user is created)",
        params: UserPreferenceParamsSchema,
        querystring: TenantQuerySchema,
        body: ChannelPreferencesBodySchema,
        response: { 202: ChannelPreferencesSchema, ...errors },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { distinct_id } = request.params;
      const { tenant_id } = request.query;
      const result = await app.db.transaction().execute(async (trx) => {
        await beginPreferenceWrite(trx, workspaceId, tenant_id);
        const update = { channels: readChannelPreferences(request.body.channel_preferences, 'channel_preferences'), categories: [] };
        const users = await writePreferences(trx, workspaceId, tenant_id, [distinct_id], update);
        return presentChannelPreferences(await loadPreferenceState(trx, users.get(distinct_id)!, tenant_id));
      });
      return reply.code(202).send({ channel_preferences: result });
    },
  );

  app.get(
    '/v1/user/:distinct_id/preference/evaluate/',
    {
      config,
      schema: {
        tags,
        operationId: 'evaluateUserPreference',
        summary: 'Whether a notification of a category may reach the user on a channel, and the rule that decided (ours)',
        params: UserPreferenceParamsSchema,
        querystring: EvaluateQuerySchema,
        response: { 200: PreferenceEvaluationSchema, ...errors },
      },
    },
    async (request) => {
      const { category: slug, tenant_id } = request.query;
      const channel = readChannel(request.query.channel, 'channel');
      const { roots, state } = await readUserPreferences(app.db, workspaceOf(request).id, tenant_id, request.params.distinct_id);
      if ((ROOT_CATEGORIES as readonly string[]).includes(slug)) return evaluate(ROOT_CATEGORY, undefined, channel, state.restricted.has(channel), slug);
      const category = findCategory(roots, slug);
      if (!category) throw categoryNotFound(slug);
      return evaluate(category, state.choices.get(slug), channel, state.restricted.has(channel));
    },
  );
};
