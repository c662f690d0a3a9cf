import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, NoContent, OffsetQuerySchema, offsetList, ref } from '../schemas/common.js';
import { TenantIdParamsSchema, TenantSchema, TenantUpsertBodySchema } from '../schemas/tenants.js';
import { presentTenant } from '../presenters/tenants.js';
import { deleteTenant, getTenant, listTenants, upsertTenant } from '../services/tenants.js';

/** Tenants: the brands or customers a workspace sends on behalf of; every workspace has `default`. */
export const tenantRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['tenants'];

  app.post(
    '/v1/tenant/:tenant_id/',
    {
      schema: {
        tags,
        operationId: 'upsertTenant',
        summary: 'Create or update a tenant (properties merge at the first level)',
        params: TenantIdParamsSchema,
        body: TenantUpsertBodySchema,
        response: { 201: ref(TenantSchema), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const row = await upsertTenant(app.db, request.workspace.id, request.params.tenant_id, request.body);
      return reply.code(201).send(presentTenant(row));
    },
  );

  app.get(
    '/v1/tenant/:tenant_id/',
    {
      schema: {
        tags,
        operationId: 'getTenant',
        summary: 'Fetch a tenant',
        params: TenantIdParamsSchema,
        response: { 200: ref(TenantSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      return presentTenant(await getTenant(app.db, request.workspace.id, request.params.tenant_id));
    },
  );

  app.get(
    '/v1/tenant/',
    {
      schema: {
        tags,
        operationId: 'listTenants',
        summary: 'List tenants, oldest first',
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(TenantSchema)), ...errors(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listTenants(app.db, request.workspace.id, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(presentTenant) };
    },
  );

  app.delete(
    '/v1/tenant/:tenant_id/',
    {
      schema: {
        tags,
        operationId: 'deleteTenant',
        summary: 'Delete a tenant (not the default one)',
        params: TenantIdParamsSchema,
        response: { 204: NoContent, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteTenant(app.db, app.credentials, request.workspace.id, request.params.tenant_id);
      return reply.code(204).send(null);
    },
  );
};
