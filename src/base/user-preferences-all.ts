import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { offsetPage } from '../services/offset-page.js';
import { readUserPreferences, setUserPreferences } from '../services/user-preferences.js';
import { presentCategory, presentUserPreferences } from '../presenters/preferences.js';
import { OffsetQuerySchema, offsetList, ref, shortErrors } from '../schemas/common.js';
import {
  CategoryPreferenceSchema,
  TenantQuerySchema,
  UserPreferenceParamsSchema,
  UserPreferencesBodySchema,
  UserPreferencesSchema,
} from '../schemas/preferences.js';
import { categoriesOf } from '../domain/preference-category-rules.js';

/** A user's whole preference at once: every category as a page, and one write for channels and categories. */
export const userPreferenceAllRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['user preferences'];
  const config = { errorShape: 'short' as const };
  const errors = shortErrors(400, 401, 404);

  app.get(
    '/v1/user/:distinct_id/preference/category/',
    {
      config,
      schema: {
        tags,
        operationId: 'listUserCategoryPreferences',
        summary: "A user's preference for every category of the live definition in a tenant, in definition order",
        params: UserPreferenceParamsSchema,
        querystring: Type.Object({ ...TenantQuerySchema.properties, ...OffsetQuerySchema.properties }),
        response: { 200: offsetList(ref(CategoryPreferenceSchema)), ...errors },
      },
    },
    async (request) => {
      const { tenant_id, limit, offset } = request.query;
      const { roots, state } = await readUserPreferences(
        app.db,
        request.workspace.id,
        tenant_id,
        request.params.distinct_id,
      );
      return offsetPage(categoriesOf(roots), { limit, offset }, (category) => presentCategory(category, state));
    },
  );

  app.patch(
    '/v1/user/:distinct_id/preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateUserPreferences',
        summary:
          "Set a user's channel restrictions and category choices in a tenant in one request (what it does not name is kept; an unknown user is created)",
        params: UserPreferenceParamsSchema,
        querystring: TenantQuerySchema,
        body: UserPreferencesBodySchema,
        response: { 200: ref(UserPreferencesSchema), ...errors },
      },
    },
    async (request) => {
      const { distinct_id } = request.params;
      const { roots, state } = await app.db
        .transaction()
        .execute((trx) =>
          setUserPreferences(trx, request.workspace.id, request.query.tenant_id, distinct_id, request.body),
        );
      return presentUserPreferences(roots, state);
    },
  );
};
