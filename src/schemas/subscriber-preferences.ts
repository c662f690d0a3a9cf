import { Type } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { DistinctIdSchema } from './users.js';
import { ChannelName } from './preferences.js';

/**
 * The web SDK's preference calls (@suprsend/web-sdk 4, `v2/subscriber/{distinct_id}/…`): the same
 * records as the server's v1 preference routes, for the user token's subscriber.
 */
export const SubscriberParamsSchema = Type.Object({ distinct_id: DistinctIdSchema });
export const SubscriberCategoryParamsSchema = Type.Object({
  distinct_id: DistinctIdSchema,
  category: Type.String({ minLength: 1, maxLength: 1000 }),
});

const tenantAndChannels = {
  tenant_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: "the token's tenant, else `default`" }),
  ),
  show_opt_out_channels: Type.Boolean({
    default: true,
    description: 'false: an opted-out category lists no channels',
  }),
};

export const SubscriberPreferenceQuerySchema = Type.Object(tenantAndChannels);
export const SubscriberCategoriesQuerySchema = Type.Object({
  ...tenantAndChannels,
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
});
export const SubscriberTenantQuerySchema = Type.Object({ tenant_id: tenantAndChannels.tenant_id });

const channelList = (description: string) =>
  Type.Optional(Nullable(Type.Array(ChannelName, { maxItems: 64, description })));

/** What the SDK sends for a category: `opt_out_channels` null when opting in (every channel back on). */
export const SubscriberCategoryBodySchema = Type.Object(
  {
    preference: Type.Optional(Type.String({ maxLength: 64, description: 'opt_in or opt_out' })),
    opt_out_channels: channelList('channels off while the category is opted in; null clears them'),
    opt_in_channels: channelList('channels on while the category is opted out; null clears them'),
  },
  { additionalProperties: false },
);
