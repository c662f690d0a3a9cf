import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { offsetPage } from '../services/offset-page.js';
import { placedCategories } from '../domain/tenant-preferences.js';
import { presentTenantCategory, presentTenantPreferences } from '../presenters/tenant-preferences.js';
import { findPlacedCategory, readTenantPreferences, updateTenantCategory } from '../services/tenant-preferences.js';
import { OffsetQuerySchema, offsetList, ref, shortErrors } from '../schemas/common.js';
import {
  TenantCategoryBodySchema,
  TenantCategoryParamsSchema,
  TenantCategoryPreferenceSchema,
  TenantCategorySlugParamsSchema,
  TenantPreferencesSchema,
} from '../schemas/tenant-preferences.js';
import { TenantIdParamsSchema } from '../schemas/tenants.js';

const LocaleQuery = {
  locale: Type.Optional(Type.String({ maxLength: 35, description: 'accepted; names are not translated yet (ours)' })),
};
const PageQuerySchema = Type.Object({ ...OffsetQuerySchema.properties, ...LocaleQuery });

/**
 * A tenant's own defaults for the workspace's preference categories. What a tenant sets here is what
 * its users' preferences, the evaluate endpoint and delivery see (evaluateInTenant).
 */
export const tenantPreferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['tenant preferences'];
  const config = { errorShape: 'short' as const };
  const errors = shortErrors(400, 401, 404);

  app.get(
    '/v1/tenant/:tenant_id/preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'getTenantPreferences',
        summary: "Every category of the live definition with the tenant's overrides, by root and section",
        params: TenantIdParamsSchema,
        querystring: Type.Object(LocaleQuery),
        response: { 200: ref(TenantPreferencesSchema), ...errors },
      },
    },
    async (request) => {
      const { roots, overlay } = await readTenantPreferences(app.db, request.workspace.id, request.params.tenant_id);
      return presentTenantPreferences(roots, overlay);
    },
  );

  for (const [url, operationId] of [
    ['/v1/tenant/:tenant_id/preference/category/', 'listTenantCategoryPreferences'],
    ['/v1/tenant/:tenant_id/category/', 'listTenantCategories'],
  ] as const) {
    app.get(
      url,
      {
        config,
        schema: {
          tags,
          operationId,
          summary: "The categories of the live definition with the tenant's overrides, in definition order",
          params: TenantIdParamsSchema,
          querystring: PageQuerySchema,
          response: { 200: offsetList(ref(TenantCategoryPreferenceSchema)), ...errors },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const { roots, overlay } = await readTenantPreferences(app.db, request.workspace.id, request.params.tenant_id);
        return offsetPage(placedCategories(roots), { limit, offset }, (placed) =>
          presentTenantCategory(placed, overlay),
        );
      },
    );
  }

  app.get(
    '/v1/tenant/:tenant_id/preference/category/:category/',
    {
      config,
      schema: {
        tags,
        operationId: 'getTenantCategoryPreference',
        summary: "One category with the tenant's overrides",
        params: TenantCategoryParamsSchema,
        querystring: Type.Object(LocaleQuery),
        response: { 200: ref(TenantCategoryPreferenceSchema), ...errors },
      },
    },
    async (request) => {
      const { tenant_id, category } = request.params;
      const { roots, overlay } = await readTenantPreferences(app.db, request.workspace.id, tenant_id);
      return presentTenantCategory(findPlacedCategory(roots, category), overlay);
    },
  );

  app.patch(
    '/v1/tenant/:tenant_id/preference/category/:category/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateTenantCategoryPreference',
        summary: "Set the tenant's overrides for one category (fields left out are kept)",
        params: TenantCategoryParamsSchema,
        body: TenantCategoryBodySchema,
        response: { 200: ref(TenantCategoryPreferenceSchema), ...errors },
      },
    },
    async (request) => {
      const { tenant_id, category } = request.params;
      const { placed, overlay } = await app.db
        .transaction()
        .execute((trx) => updateTenantCategory(trx, request.workspace.id, tenant_id, category, request.body));
      return presentTenantCategory(placed, overlay);
    },
  );

  app.patch(
    '/v1/tenant/:tenant_id/category/:category_slug/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateTenantCategory',
        summary: "Set the tenant's overrides for one category (the older path; fields left out are kept)",
        params: TenantCategorySlugParamsSchema,
        body: TenantCategoryBodySchema,
        response: { 202: ref(TenantCategoryPreferenceSchema), ...errors },
      },
    },
    async (request, reply) => {
      const { tenant_id, category_slug } = request.params;
      const { placed, overlay } = await app.db
        .transaction()
        .execute((trx) => updateTenantCategory(trx, request.workspace.id, tenant_id, category_slug, request.body));
      return reply.code(202).send(presentTenantCategory(placed, overlay));
    },
  );
};
