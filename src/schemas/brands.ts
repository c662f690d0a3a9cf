import { Type } from '@sinclair/typebox';
import { TenantIdParamsSchema, TenantSchema, TenantUpsertBodySchema } from './tenants.js';

/** Brands are what tenants were called before: the same records, reached by the SDKs' `brands` API. */
export const BrandIdParamsSchema = Type.Object({ brand_id: TenantIdParamsSchema.properties.tenant_id });

export const BrandUpsertBodySchema = Type.Object(
  {
    ...TenantUpsertBodySchema.properties,
    brand_name: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'the same as tenant_name' })),
  },
  {
    additionalProperties: false,
    description: 'A tenant upsert body; brand_name stands for tenant_name (tenant_name wins when both are given).',
  },
);

export const BrandSchema = Type.Object(
  { brand_id: Type.String(), brand_name: Type.String(), ...TenantSchema.properties },
  { $id: 'Brand', title: 'Brand', description: 'A tenant, with its id and name also under their older names' },
);
