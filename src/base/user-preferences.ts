import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { surfaceOperation, surfaceParams, surfacePath, surfaceTags, type Surface } from '../http/surfaces.js';
import { presentCategory, presentChannelPreferences, presentUserPreferences } from '../presenters/preferences.js';
import {
  evaluateUserPreference,
  evaluateUserPreferences,
  readCategoryPreference,
  readUserPreferences,
  setCategoryPreference,
  setChannelPreferences,
} from '../services/user-preferences.js';
import { errors as errorResponses, ref } from '../schemas/common.js';
import {
  CategoryParamsSchema,
  CategoryPreferenceBodySchema,
  CategoryPreferenceSchema,
  ChannelPreferencesBodySchema,
  ChannelPreferencesSchema,
  EvaluateQuerySchema,
  PreferenceEvaluationSchema,
  PreferenceEvaluationsSchema,
  TenantQuerySchema,
  UserPreferenceParamsSchema,
  UserPreferencesSchema,
} from '../schemas/preferences.js';

/**
 * A user's preferences and their evaluation, on the base surface and, as their management twin, under `/management/v1/{workspace}/`
 * (docs/management-twins.md).
 */
export const userPreferenceReadRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'user preferences');
    const errors = errorResponses(400, 401, 404);

    app.get(
      surfacePath(surface, '/user/:distinct_id/preference/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'getUserPreferences'),
          summary:
            "A user's preferences in a tenant: every category of the live definition, and the channel restrictions",
          params: surfaceParams(surface, UserPreferenceParamsSchema.properties),
          querystring: TenantQuerySchema,
          response: { 200: ref(UserPreferencesSchema), ...errors },
        },
      },
      async (request) => {
        const { roots, state } = await readUserPreferences(
          app.db,
          request.workspace.id,
          request.query.tenant_id,
          request.params.distinct_id,
        );
        return presentUserPreferences(roots, state);
      },
    );

    app.get(
      surfacePath(surface, '/user/:distinct_id/preference/evaluate/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'evaluateUserPreference'),
          summary:
            'Whether a notification of a category may reach the user on a channel, and the rule that decided (ours)',
          params: surfaceParams(surface, UserPreferenceParamsSchema.properties),
          querystring: EvaluateQuerySchema,
          response: { 200: PreferenceEvaluationSchema, ...errors },
        },
      },
      async (request) => {
        return evaluateUserPreference(app.db, request.workspace.id, request.query, request.params.distinct_id);
      },
    );

    app.get(
      surfacePath(surface, '/user/:distinct_id/preference/evaluation/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'evaluateUserPreferences'),
          summary:
            'Every category of the live definition on every channel: whether it may reach the user, and the rule that decided (ours)',
          params: surfaceParams(surface, UserPreferenceParamsSchema.properties),
          querystring: TenantQuerySchema,
          response: { 200: PreferenceEvaluationsSchema, ...errors },
        },
      },
      async (request) =>
        evaluateUserPreferences(app.db, request.workspace.id, request.query.tenant_id, request.params.distinct_id),
    );
  };

/** One user's preferences in a tenant (docs/spec/compat.md, User preferences), and the evaluate endpoint (ours). */
export const userPreferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['user preferences'];
  await app.register(userPreferenceReadRoutes('base'));
  const errors = errorResponses(400, 401, 404);

  app.get(
    '/v1/user/:distinct_id/preference/category/:category/',
    {
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
      const { category, state } = await readCategoryPreference(
        app.db,
        request.workspace.id,
        request.query.tenant_id,
        distinct_id,
        slug,
      );

      return presentCategory(category, state);
    },
  );

  app.patch(
    '/v1/user/:distinct_id/preference/category/:category/',
    {
      schema: {
        tags,
        operationId: 'updateUserCategoryPreference',
        summary:
          "Set a user's choice for one category in a tenant (fields left out are kept; an unknown user is created)",
        params: CategoryParamsSchema,
        querystring: TenantQuerySchema,
        body: CategoryPreferenceBodySchema,
        response: { 202: ref(CategoryPreferenceSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { distinct_id, category: slug } = request.params;
      const { category, state } = await app.db
        .transaction()
        .execute((trx) =>
          setCategoryPreference(trx, request.workspace.id, request.query.tenant_id, distinct_id, slug, request.body),
        );
      return reply.code(202).send(presentCategory(category, state));
    },
  );

  app.get(
    '/v1/user/:distinct_id/preference/channel_preference/',
    {
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
      const { state } = await readUserPreferences(
        app.db,
        request.workspace.id,
        request.query.tenant_id,
        request.params.distinct_id,
      );
      return { channel_preferences: presentChannelPreferences(state) };
    },
  );

  app.patch(
    '/v1/user/:distinct_id/preference/channel_preference/',
    {
      schema: {
        tags,
        operationId: 'updateUserChannelPreferences',
        summary:
          'Restrict or allow channels for a user in a tenant (channels left out are kept; an unknown user is created)',
        params: UserPreferenceParamsSchema,
        querystring: TenantQuerySchema,
        body: ChannelPreferencesBodySchema,
        response: { 202: ChannelPreferencesSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { distinct_id } = request.params;
      const state = await app.db
        .transaction()
        .execute((trx) =>
          setChannelPreferences(
            trx,
            request.workspace.id,
            request.query.tenant_id,
            distinct_id,
            request.body.channel_preferences,
          ),
        );
      return reply.code(202).send({ channel_preferences: presentChannelPreferences(state) });
    },
  );
};
