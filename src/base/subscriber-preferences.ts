import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { InboxSubscriber } from '../auth/inbox-token.js';
import { presentCategoryFor, presentChannelPreferences, presentUserPreferencesFor } from '../presenters/preferences.js';
import { fullErrors, offsetList, ref } from '../schemas/common.js';
import { INBOX_SECURITY } from '../schemas/feed.js';
import {
  CategoryPreferenceSchema,
  ChannelPreferencesBodySchema,
  ChannelPreferencesSchema,
  UserPreferencesBodySchema,
  UserPreferencesSchema,
} from '../schemas/preferences.js';
import {
  SubscriberCategoriesQuerySchema,
  SubscriberCategoryBodySchema,
  SubscriberCategoryParamsSchema,
  SubscriberParamsSchema,
  SubscriberPreferenceQuerySchema,
  SubscriberTenantQuerySchema,
} from '../schemas/subscriber-preferences.js';
import { feedOwner } from '../services/feed.js';
import { offsetPage } from '../services/offset-page.js';
import {
  readCategoryPreference,
  readUserPreferences,
  setCategoryPreference,
  setChannelPreferences,
  setUserPreferences,
} from '../services/user-preferences.js';
import { categoriesOf } from '../domain/preference-category-rules.js';

/**
 * A user's preferences from the browser (docs/spec/product.md §4), as @suprsend/web-sdk 4 calls
 * them: registered inside the feed tree, whose hook verifies the public key and user token. The
 * path's distinct_id must be the token's subscriber and a tenant-scoped token reads and writes only
 * its tenant (403 otherwise, as the feed); the records are the v1 preference routes'.
 */
export const subscriberPreferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['inbox'];
  const security = INBOX_SECURITY;
  const errors = fullErrors(400, 401, 403, 404);
  /** The workspace, user and tenant a call acts on: the token's, never another's. */
  const scope = (subscriber: InboxSubscriber | undefined, distinctId: string, tenantId: string | undefined) => {
    const owner = feedOwner(subscriber!, { distinct_id: distinctId, tenant_id: tenantId });
    return [owner.workspaceId, owner.tenantId, owner.distinctId] as const;
  };

  app.get(
    '/v2/subscriber/:distinct_id/full_preference/',
    {
      schema: {
        tags,
        security,
        operationId: 'getSubscriberPreferences',
        summary: "The token's user's preferences: every section of the live categories, and the channels",
        params: SubscriberParamsSchema,
        querystring: SubscriberPreferenceQuerySchema,
        response: { 200: ref(UserPreferencesSchema), ...errors },
      },
    },
    async (request) => {
      const { roots, state } = await readUserPreferences(
        app.db,
        ...scope(request.subscriber, request.params.distinct_id, request.query.tenant_id),
      );
      return presentUserPreferencesFor(roots, state, request.query.show_opt_out_channels);
    },
  );

  app.patch(
    '/v2/subscriber/:distinct_id/full_preference/',
    {
      schema: {
        tags,
        security,
        operationId: 'updateSubscriberPreferences',
        summary: "Set the token's user's channel restrictions and category choices in one write",
        params: SubscriberParamsSchema,
        querystring: SubscriberPreferenceQuerySchema,
        body: UserPreferencesBodySchema,
        response: { 200: ref(UserPreferencesSchema), ...errors },
      },
    },
    async (request) => {
      const where = scope(request.subscriber, request.params.distinct_id, request.query.tenant_id);
      const { roots, state } = await app.db
        .transaction()
        .execute((trx) => setUserPreferences(trx, ...where, request.body));
      return presentUserPreferencesFor(roots, state, request.query.show_opt_out_channels);
    },
  );

  app.get(
    '/v2/subscriber/:distinct_id/category/',
    {
      schema: {
        tags,
        security,
        operationId: 'listSubscriberCategoryPreferences',
        summary: "The token's user's preference for every category, as a page in definition order",
        params: SubscriberParamsSchema,
        querystring: SubscriberCategoriesQuerySchema,
        response: { 200: offsetList(ref(CategoryPreferenceSchema)), ...errors },
      },
    },
    async (request) => {
      const { limit, offset, show_opt_out_channels: show } = request.query;
      const { roots, state } = await readUserPreferences(
        app.db,
        ...scope(request.subscriber, request.params.distinct_id, request.query.tenant_id),
      );
      return offsetPage(categoriesOf(roots), { limit, offset }, (category) =>
        presentCategoryFor(category, state, show),
      );
    },
  );

  app.get(
    '/v2/subscriber/:distinct_id/category/:category/',
    {
      schema: {
        tags,
        security,
        operationId: 'getSubscriberCategoryPreference',
        summary: "The token's user's preference for one category",
        params: SubscriberCategoryParamsSchema,
        querystring: SubscriberPreferenceQuerySchema,
        response: { 200: ref(CategoryPreferenceSchema), ...errors },
      },
    },
    async (request) => {
      const where = scope(request.subscriber, request.params.distinct_id, request.query.tenant_id);
      const { category, state } = await readCategoryPreference(app.db, ...where, request.params.category);
      return presentCategoryFor(category, state, request.query.show_opt_out_channels);
    },
  );

  app.patch(
    '/v2/subscriber/:distinct_id/category/:category/',
    {
      schema: {
        tags,
        security,
        operationId: 'updateSubscriberCategoryPreference',
        summary: "Opt the token's user in or out of one category, or set its channels (fields left out are kept)",
        params: SubscriberCategoryParamsSchema,
        querystring: SubscriberPreferenceQuerySchema,
        body: SubscriberCategoryBodySchema,
        response: { 200: ref(CategoryPreferenceSchema), ...errors },
      },
    },
    async (request) => {
      const where = scope(request.subscriber, request.params.distinct_id, request.query.tenant_id);
      const { preference, opt_in_channels, opt_out_channels } = request.body;
      // The SDK sends `opt_out_channels: null` when opting a category back in: no channel stays off.
      const input = {
        ...(preference === undefined ? {} : { preference }),
        ...(opt_in_channels === undefined ? {} : { opt_in_channels: opt_in_channels ?? [] }),
        ...(opt_out_channels === undefined ? {} : { opt_out_channels: opt_out_channels ?? [] }),
      };
      const { category, state } = await app.db
        .transaction()
        .execute((trx) => setCategoryPreference(trx, ...where, request.params.category, input));
      return presentCategoryFor(category, state, request.query.show_opt_out_channels);
    },
  );

  app.get(
    '/v2/subscriber/:distinct_id/channel_preference/',
    {
      schema: {
        tags,
        security,
        operationId: 'getSubscriberChannelPreferences',
        summary: "The token's user's channel restrictions (every channel)",
        params: SubscriberParamsSchema,
        querystring: SubscriberTenantQuerySchema,
        response: { 200: ChannelPreferencesSchema, ...errors },
      },
    },
    async (request) => {
      const where = scope(request.subscriber, request.params.distinct_id, request.query.tenant_id);
      const { state } = await readUserPreferences(app.db, ...where);
      return { channel_preferences: presentChannelPreferences(state) };
    },
  );

  app.patch(
    '/v2/subscriber/:distinct_id/channel_preference/',
    {
      schema: {
        tags,
        security,
        operationId: 'updateSubscriberChannelPreferences',
        summary: "Restrict or allow channels for the token's user (channels left out are kept)",
        params: SubscriberParamsSchema,
        querystring: SubscriberTenantQuerySchema,
        body: ChannelPreferencesBodySchema,
        response: { 200: ChannelPreferencesSchema, ...errors },
      },
    },
    async (request) => {
      const where = scope(request.subscriber, request.params.distinct_id, request.query.tenant_id);
      const state = await app.db
        .transaction()
        .execute((trx) => setChannelPreferences(trx, ...where, request.body.channel_preferences));
      return { channel_preferences: presentChannelPreferences(state) };
    },
  );
};
