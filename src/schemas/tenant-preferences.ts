import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';
import { DEFAULT_PREFERENCES } from './preference-categories.js';
import { PREFERENCE_CHANNELS } from './preferences.js';
import { TenantIdParamsSchema } from './tenants.js';

const ChannelList = Nullable(
  Type.Array(Type.String({ maxLength: 64, description: PREFERENCE_CHANNELS.join(', ') }), { maxItems: 64 }),
);

export const TenantCategoryParamsSchema = Type.Object({
  tenant_id: TenantIdParamsSchema.properties.tenant_id,
  category: Type.String({ minLength: 1, maxLength: 1000, description: 'a category slug of the live definition' }),
});
export const TenantCategorySlugParamsSchema = Type.Object({
  tenant_id: TenantIdParamsSchema.properties.tenant_id,
  category_slug: TenantCategoryParamsSchema.properties.category,
});

export const TenantCategoryBodySchema = Type.Object(
  {
    preference: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 64,
          description: `${DEFAULT_PREFERENCES.join(', ')}: replaces the category default in this tenant; null follows it again`,
        }),
      ),
    ),
    visible_to_subscriber: Type.Optional(Nullable(Type.Boolean())),
    mandatory_channels: Type.Optional(ChannelList),
    opt_in_channels: Type.Optional(ChannelList),
    blocked_channels: Type.Optional({
      ...ChannelList,
      description: 'channels this tenant never sends the category on, whatever users chose',
    }),
  },
  { additionalProperties: false, description: 'Fields given are set (null clears); fields left out are kept.' },
);

export const TenantCategoryPreferenceSchema = Type.Object(
  {
    name: Type.String(),
    category: Type.String(),
    description: Nullable(Type.String()),
    tags: Nullable(Type.Array(Type.String())),
    effective_tags: Type.Array(Type.String(), { description: "the category's tags and its section's" }),
    root_category: Type.String(),
    default_preference: Type.String({ description: "the workspace's default" }),
    default_mandatory_channels: Nullable(Type.Array(Type.String())),
    default_opt_in_channels: Nullable(Type.Array(Type.String())),
    enabled_for_tenant: Type.Boolean({ description: 'always true (ours)' }),
    visible_to_subscriber: Type.Boolean(),
    preference: Nullable(
      Type.String({ description: "the tenant's own default, null when it follows the workspace's" }),
    ),
    mandatory_channels: Nullable(Type.Array(Type.String())),
    opt_in_channels: Nullable(Type.Array(Type.String())),
    blocked_channels: Nullable(Type.Array(Type.String())),
    updated_at: Nullable(Timestamp),
  },
  {
    $id: 'TenantCategoryPreference',
    title: 'Tenant category preference',
    description: 'A category of the live definition with the overrides of one tenant.',
  },
);

export const TenantPreferencesSchema = Type.Object(
  {
    root_categories: Type.Array(
      Type.Object({
        root_category: Type.String(),
        sections: Type.Array(
          Type.Object({
            name: Nullable(Type.String()),
            description: Nullable(Type.String()),
            tags: Nullable(Type.Array(Type.String())),
            categories: Type.Array(Type.Ref('TenantCategoryPreference')),
          }),
        ),
      }),
    ),
  },
  { $id: 'TenantPreferences', title: 'Tenant preferences' },
);
