import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { offsetPage } from '../services/offset-page.js';
import { beginPreferenceWrite, type PreferenceUpdate } from '../services/user-preferences.js';
import { notFoundErrors } from '../errors.js';
import { presentCategory, presentChannelPreferences, presentUserPreferences } from '../presenters/preferences.js';
import { readObjectPreferences, writeObjectPreferences } from '../services/object-preferences.js';
import { objectRefOf } from '../services/objects.js';
import { OffsetQuerySchema, offsetList, ref, shortErrors } from '../schemas/common.js';
import { ObjectParamsSchema } from '../schemas/objects.js';
import {
  BulkPreferencesBodySchema,
  CategoryParamsSchema,
  CategoryPreferenceBodySchema,
  CategoryPreferenceSchema,
  ChannelPreferencesBodySchema,
  ChannelPreferencesSchema,
  TenantQuerySchema,
  UserPreferencesSchema,
} from '../schemas/preferences.js';
import type { RootCategories } from '../schemas/preference-categories.js';
import { categoriesOf, findCategory } from '../domain/preference-category-rules.js';
import { readCategoryChoice, readCategoryChoices, readChannelPreferences } from '../domain/preference-updates.js';

const ObjectCategoryParamsSchema = Type.Object({
  ...ObjectParamsSchema.properties,
  category_slug: CategoryParamsSchema.properties.category,
});
const ObjectPreferencesBodySchema = Type.Object(
  {
    channel_preferences: BulkPreferencesBodySchema.properties.channel_preferences,
    categories: BulkPreferencesBodySchema.properties.categories,
  },
  { additionalProperties: false },
);

/** An object's preferences in a tenant: the user preference endpoints, for objects (`?tenant_id=`). */
export const objectPreferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['object preferences'];
  const config = { errorShape: 'short' as const };
  const errors = shortErrors(400, 401, 404);
  /** Locks the tenant, reads the live categories, builds the update from them, writes it. */
  const write = (
    workspaceId: number,
    tenantId: string,
    objectRef: { objectType: string; objectId: string },
    build: (roots: RootCategories) => PreferenceUpdate,
  ) =>
    app.db.transaction().execute(async (trx) => {
      const roots = await beginPreferenceWrite(trx, workspaceId, tenantId);
      const state = await writeObjectPreferences(trx, workspaceId, tenantId, objectRef, build(roots));
      return { roots, state };
    });

  app.get(
    '/v1/object/:object_type/:id/preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'getObjectPreferences',
        summary:
          "An object's preferences in a tenant: every category of the live definition, and the channel restrictions",
        params: ObjectParamsSchema,
        querystring: TenantQuerySchema,
        response: { 200: ref(UserPreferencesSchema), ...errors },
      },
    },
    async (request) => {
      const { roots, state } = await readObjectPreferences(
        app.db,
        request.workspace.id,
        request.query.tenant_id,
        objectRefOf(request.params),
      );
      return presentUserPreferences(roots, state);
    },
  );

  app.patch(
    '/v1/object/:object_type/:id/preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateObjectPreferences',
        summary:
          "Set an object's channel restrictions and category choices in a tenant (what the request does not name is kept; an unknown object is created)",
        params: ObjectParamsSchema,
        querystring: TenantQuerySchema,
        body: ObjectPreferencesBodySchema,
        response: { 200: ref(UserPreferencesSchema), ...errors },
      },
    },
    async (request) => {
      const { roots, state } = await write(
        request.workspace.id,
        request.query.tenant_id,
        objectRefOf(request.params),
        (live) => ({
          channels: readChannelPreferences(request.body.channel_preferences ?? [], 'channel_preferences'),
          categories: readCategoryChoices(
            request.body.categories ?? [],
            new Set(categoriesOf(live).map((category) => category.category)),
            'categories',
          ),
        }),
      );
      return presentUserPreferences(roots, state);
    },
  );

  app.get(
    '/v1/object/:object_type/:id/preference/category/',
    {
      config,
      schema: {
        tags,
        operationId: 'listObjectCategoryPreferences',
        summary: "An object's preference for every category of the live definition in a tenant",
        params: ObjectParamsSchema,
        querystring: Type.Object({ ...TenantQuerySchema.properties, ...OffsetQuerySchema.properties }),
        response: { 200: offsetList(ref(CategoryPreferenceSchema)), ...errors },
      },
    },
    async (request) => {
      const { tenant_id, limit, offset } = request.query;
      const { roots, state } = await readObjectPreferences(
        app.db,
        request.workspace.id,
        tenant_id,
        objectRefOf(request.params),
      );
      return offsetPage(categoriesOf(roots), { limit, offset }, (category) => presentCategory(category, state));
    },
  );

  app.get(
    '/v1/object/:object_type/:id/preference/category/:category_slug/',
    {
      config,
      schema: {
        tags,
        operationId: 'getObjectCategoryPreference',
        summary: "An object's preference for one category in a tenant",
        params: ObjectCategoryParamsSchema,
        querystring: TenantQuerySchema,
        response: { 200: ref(CategoryPreferenceSchema), ...errors },
      },
    },
    async (request) => {
      const { roots, state } = await readObjectPreferences(
        app.db,
        request.workspace.id,
        request.query.tenant_id,
        objectRefOf(request.params),
      );
      const category = findCategory(roots, request.params.category_slug);
      if (!category) throw notFoundErrors.category(request.params.category_slug);
      return presentCategory(category, state);
    },
  );

  app.patch(
    '/v1/object/:object_type/:id/preference/category/:category_slug/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateObjectCategoryPreference',
        summary:
          "Set an object's choice for one category in a tenant (fields left out are kept; an unknown object is created)",
        params: ObjectCategoryParamsSchema,
        querystring: TenantQuerySchema,
        body: CategoryPreferenceBodySchema,
        response: { 202: ref(CategoryPreferenceSchema), ...errors },
      },
    },
    async (request, reply) => {
      const slug = request.params.category_slug;
      const { roots, state } = await write(
        request.workspace.id,
        request.query.tenant_id,
        objectRefOf(request.params),
        (live) => {
          if (!findCategory(live, slug)) throw notFoundErrors.category(slug);
          return { channels: [], categories: [readCategoryChoice(slug, request.body, '')] };
        },
      );
      return reply.code(202).send(presentCategory(findCategory(roots, slug)!, state));
    },
  );

  app.get(
    '/v1/object/:object_type/:id/preference/channel_preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'getObjectChannelPreferences',
        summary: "An object's channel restrictions in a tenant (every channel)",
        params: ObjectParamsSchema,
        querystring: TenantQuerySchema,
        response: { 200: ChannelPreferencesSchema, ...errors },
      },
    },
    async (request) => {
      const { state } = await readObjectPreferences(
        app.db,
        request.workspace.id,
        request.query.tenant_id,
        objectRefOf(request.params),
      );
      return { channel_preferences: presentChannelPreferences(state) };
    },
  );

  app.patch(
    '/v1/object/:object_type/:id/preference/channel_preference/',
    {
      config,
      schema: {
        tags,
        operationId: 'updateObjectChannelPreferences',
        summary: 'Restrict or allow channels for an object in a tenant (channels left out are kept)',
        params: ObjectParamsSchema,
        querystring: TenantQuerySchema,
        body: ChannelPreferencesBodySchema,
        response: { 202: ChannelPreferencesSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { state } = await write(request.workspace.id, request.query.tenant_id, objectRefOf(request.params), () => ({
        channels: readChannelPreferences(request.body.channel_preferences, 'channel_preferences'),
        categories: [],
      }));
      return reply.code(202).send({ channel_preferences: presentChannelPreferences(state) });
    },
  );
};
