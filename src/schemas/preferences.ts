import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ref } from './common.js';
import { CHANNEL_NAMES } from './tenants.js';
import { DistinctIdSchema } from './users.js';

/** The channels a preference names (docs/spec/compat.md, User preferences). */
export const PREFERENCE_CHANNELS = CHANNEL_NAMES;
export type PreferenceChannel = (typeof PREFERENCE_CHANNELS)[number];

/** What a user may choose for a category; `cant_unsubscribe` is only ever a category default. */
export const USER_PREFERENCES = ['opt_in', 'opt_out'] as const;
export type UserPreference = (typeof USER_PREFERENCES)[number];

const channelList = PREFERENCE_CHANNELS.join(', ');
export const ChannelName = Type.String({ maxLength: 64, description: channelList });

/** `?tenant_id=`: the tenant whose preferences are read or written. */
export const TenantQuerySchema = Type.Object({
  tenant_id: Type.String({
    minLength: 1,
    maxLength: 64,
    default: 'default',
    description: 'the default tenant when absent',
  }),
});

export const ChannelPreferenceInputSchema = Type.Object(
  {
    channel: ChannelName,
    is_restricted: Type.Boolean({
      description: 'true: the channel is off for every category except cant_unsubscribe ones',
    }),
  },
  { additionalProperties: false },
);

const DigestScheduleSchema = Type.Object(
  {
    id: Type.Optional(Type.String({ maxLength: 256 })),
    time: Type.Optional(Type.String({ maxLength: 64 })),
    dtstart: Type.Optional(Type.String({ format: 'date-time' })),
    weekdays: Type.Optional(Type.Array(Type.String({ maxLength: 16 }), { maxItems: 7 })),
    monthdays: Type.Optional(
      Type.Array(Type.Object({ pos: Type.Integer(), day: Type.String({ maxLength: 16 }) }), { maxItems: 62 }),
    ),
  },
  { additionalProperties: true, description: 'stored as sent; other keys are kept' },
);

const PropertySchema = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 256 }), value: Type.Unknown() },
  { additionalProperties: false },
);

/** The fields of a category choice; each one the request names is set, the others are kept. */
const categoryChoiceFields = {
  preference: Type.Optional(Type.String({ maxLength: 64, description: 'opt_in or opt_out' })),
  opt_out_channels: Type.Optional(
    Type.Array(ChannelName, { maxItems: 64, description: 'channels off while the category is opted in' }),
  ),
  opt_in_channels: Type.Optional(
    Type.Array(ChannelName, { maxItems: 64, description: 'channels on while the category is opted out' }),
  ),
  digest_schedule: Type.Optional(Nullable(DigestScheduleSchema)),
  properties: Type.Optional(Type.Array(PropertySchema, { maxItems: 100 })),
};

export const CategoryChoiceInputSchema = Type.Object(
  {
    category: Type.String({
      minLength: 1,
      maxLength: 1000,
      description: 'a category slug of the live preference category definition',
    }),
    ...categoryChoiceFields,
  },
  { additionalProperties: false },
);
export type CategoryChoiceInput = Static<typeof CategoryChoiceInputSchema>;

export const BulkPreferencesBodySchema = Type.Object(
  {
    distinct_ids: Type.Array(DistinctIdSchema, {
      minItems: 1,
      maxItems: 100,
      description: '1 to 100 users; unknown ones are created',
    }),
    channel_preferences: Type.Optional(Type.Array(ChannelPreferenceInputSchema, { maxItems: 64 })),
    categories: Type.Optional(Type.Array(CategoryChoiceInputSchema, { maxItems: 1000 })),
  },
  { additionalProperties: false },
);
export type BulkPreferencesBody = Static<typeof BulkPreferencesBodySchema>;

/** One user's channel restrictions and category choices in one write (v1 PATCH preference/, the browser's full_preference). */
export const UserPreferencesBodySchema = Type.Object(
  {
    channel_preferences: BulkPreferencesBodySchema.properties.channel_preferences,
    categories: BulkPreferencesBodySchema.properties.categories,
  },
  { additionalProperties: false },
);

export const ResetPreferencesBodySchema = Type.Object(
  {
    distinct_ids: Type.Array(DistinctIdSchema, {
      minItems: 1,
      maxItems: 100,
      description: '1 to 100 users; unknown ones are skipped',
    }),
    reset_channel_preferences: Type.Boolean({ default: true }),
    reset_categories: Type.Boolean({ default: true }),
  },
  { additionalProperties: false },
);

export const CategoryPreferenceBodySchema = Type.Object(
  { ...categoryChoiceFields, preference: Type.String({ maxLength: 64, description: 'opt_in or opt_out' }) },
  { additionalProperties: false },
);

export const ChannelPreferencesBodySchema = Type.Object(
  { channel_preferences: Type.Array(ChannelPreferenceInputSchema, { minItems: 1, maxItems: 64 }) },
  { additionalProperties: false },
);

export const UserPreferenceParamsSchema = Type.Object({ distinct_id: DistinctIdSchema });
export const CategoryParamsSchema = Type.Object({
  distinct_id: DistinctIdSchema,
  category: Type.String({ minLength: 1, maxLength: 1000 }),
});

export const EvaluateQuerySchema = Type.Object({
  ...TenantQuerySchema.properties,
  category: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'a category slug, or a root category (system, transactional, promotional)',
  }),
  channel: ChannelName,
});

export const SuccessSchema = Type.Object({ success: Type.Boolean() });

const ChannelPreferenceSchema = Type.Object({ channel: Type.String(), is_restricted: Type.Boolean() });
export const ChannelPreferencesSchema = Type.Object({ channel_preferences: Type.Array(ChannelPreferenceSchema) });

export const CategoryPreferenceSchema = Type.Object(
  {
    name: Type.String(),
    category: Type.String(),
    description: Nullable(Type.String()),
    original_preference: Nullable(
      Type.String({ description: "the user's own choice for this tenant (opt_in or opt_out), null when none" }),
    ),
    preference: Type.String({ description: 'effective: opt_in or opt_out' }),
    is_editable: Type.Boolean({ description: 'false for cant_unsubscribe categories' }),
    channels: Type.Array(
      Type.Object({
        channel: Type.String(),
        preference: Type.String({ description: 'effective: opt_in or opt_out' }),
        is_editable: Type.Boolean(),
      }),
    ),
    opt_in_channels: Type.Array(Type.String()),
    opt_out_channels: Type.Array(Type.String()),
    digest_schedule: Nullable(Type.Record(Type.String(), Type.Unknown())),
    properties: Type.Array(Type.Object({ key: Type.String(), value: Type.Unknown() })),
  },
  {
    $id: 'CategoryPreference',
    title: 'Category preference',
    description: "A category of the live definition overlaid with the user's choices for one tenant.",
  },
);

export const UserPreferencesSchema = Type.Object(
  {
    sections: Type.Array(
      Type.Object({ name: Nullable(Type.String()), subcategories: Type.Array(ref(CategoryPreferenceSchema)) }),
    ),
    channel_preferences: Type.Array(ChannelPreferenceSchema),
  },
  { $id: 'UserPreferences', title: 'User preferences' },
);

export const PREFERENCE_REASONS = [
  'tenant_channel_blocked',
  'root_category',
  'cant_unsubscribe',
  'channel_restricted',
  'category_channel_opt_out',
  'category_channel_opt_in',
  'user_opt_out',
  'user_opt_in',
  'default_opt_out',
  'default_opt_in',
] as const;

export const PreferenceEvaluationSchema = Type.Object({
  allowed: Type.Boolean(),
  reason: Type.String({ enum: [...PREFERENCE_REASONS], description: 'the rule that decided' }),
  message: Type.String(),
});

/** Every category on every channel, as the evaluate endpoint decides each (ours). */
export const PreferenceEvaluationsSchema = Type.Object({
  tenant_id: Type.String(),
  results: Type.Array(
    Type.Object({
      category: Type.String(),
      channel: Type.String(),
      allowed: Type.Boolean(),
      reason: Type.String({ enum: [...PREFERENCE_REASONS], description: 'the rule that decided' }),
      message: Type.String(),
    }),
  ),
});
