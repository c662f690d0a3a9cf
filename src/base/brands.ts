import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import { listTenants, lookUpTenant, upsertTenant as saveTenant } from '../services/tenants.js';
import { BrandIdParamsSchema, BrandSchema, BrandUpsertBodySchema } from '../schemas/brands.js';
import { fullErrors, OffsetQuerySchema, offsetList, ref } from '../schemas/common.js';
import { presentTenant } from '../presenters/tenants.js';

const presentBrand = (row: Parameters<typeof presentTenant>[0]) => {
  const tenant = presentTenant(row);
  return { brand_id: tenant.tenant_id, brand_name: tenant.tenant_name, ...tenant };
};

/** `/v1/brand/…`: the tenants under the name older SDKs still call them by (`sdk.brands`). */
export const brandRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['tenants'];

  app.post(
    '/v1/brand/:brand_id/',
    {
      schema: {
        tags,
        operationId: 'upsertBrand',
        summary: 'Create or update a brand: the tenant of the same id',
        params: BrandIdParamsSchema,
        body: BrandUpsertBodySchema,
        response: { 201: ref(BrandSchema), ...fullErrors(400, 401) },
      },
    },
    async (request, reply) => {
      const { brand_name, ...body } = request.body;
      const row = await saveTenant(app.db, request.workspace.id, request.params.brand_id, {
        ...body,
        tenant_name: body.tenant_name ?? brand_name,
      });
      return reply.code(201).send(presentBrand(row));
    },
  );

  app.get(
    '/v1/brand/:brand_id/',
    {
      schema: {
        tags,
        operationId: 'getBrand',
        summary: 'Fetch a brand',
        params: BrandIdParamsSchema,
        response: { 200: ref(BrandSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await lookUpTenant(app.db, request.workspace.id, request.params.brand_id);
      if (!row) throw notFound(`No brand found for brand_id ${request.params.brand_id}`);
      return presentBrand(row);
    },
  );

  app.get(
    '/v1/brand/',
    {
      schema: {
        tags,
        operationId: 'listBrands',
        summary: 'List brands, oldest first',
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(BrandSchema)), ...fullErrors(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listTenants(app.db, request.workspace.id, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(presentBrand) };
    },
  );
};
