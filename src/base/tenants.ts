import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { isTimeZone } from '../entities/operations.js';
import { badRequest, notFound } from '../errors.js';
import { DEFAULT_TENANT_ID, deleteTenant, findTenant, listTenants, upsertTenant } from '../repositories/tenants.js';
import { fullErrors, NoContent, OffsetQuerySchema, offsetList, ref } from '../schemas/common.js';
import { presentTenant, SETTINGS_KEYS, TenantIdParamsSchema, TenantSchema, TenantUpsertBodySchema } from '../schemas/tenants.js';

const tenantNotFound = (tenantId: string) => notFound(`No tenant found for tenant_id ${tenantId}`);

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
        response: { 201: ref(TenantSchema), ...fullErrors(400, 401) },
      },
    },
    async (request, reply) => {
      const { tenant_name, properties, ...rest } = request.body;
      if (typeof rest.timezone === 'string' && !isTimeZone(rest.timezone)) {
        throw badRequest(`timezone: '${rest.timezone}' is not an IANA time zone name`, { timezone: 'is not an IANA time zone name' });
      }
      const settings = Object.fromEntries(SETTINGS_KEYS.filter((key) => key in rest).map((key) => [key, rest[key]]));
      const row = await upsertTenant(app.db, workspaceOf(request).id, {
        tenantId: request.params.tenant_id,
        tenantName: tenant_name,
        settings,
        properties: properties ?? {},
      });
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
        response: { 200: ref(TenantSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await findTenant(app.db, workspaceOf(request).id, request.params.tenant_id);
      if (!row) throw tenantNotFound(request.params.tenant_id);
      return presentTenant(row);
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
        response: { 200: offsetList(ref(TenantSchema)), ...fullErrors(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listTenants(app.db, workspaceOf(request).id, { limit, offset });
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
        response: { 204: NoContent, ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { tenant_id } = request.params;
      if (tenant_id === DEFAULT_TENANT_ID) throw badRequest(`tenant '${DEFAULT_TENANT_ID}' cannot be deleted`, { tenant_id: 'is the default tenant' });
      if (!(await deleteTenant(app.db, workspaceOf(request).id, tenant_id))) throw tenantNotFound(tenant_id);
      return reply.code(204).send(null);
    },
  );
};
