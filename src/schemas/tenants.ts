import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';

/** Channels a tenant can block (docs/spec/compat.md, User preferences). */
export const CHANNEL_NAMES = [
  'email',
  'sms',
  'whatsapp',
  'androidpush',
  'iospush',
  'webpush',
  'inbox',
  'slack',
  'ms_teams',
] as const;
export const SOCIAL_LINKS = [
  'website',
  'facebook',
  'linkedin',
  'twitter',
  'instagram',
  'medium',
  'discord',
  'telegram',
  'youtube',
  'tiktok',
] as const;

const Color = Nullable(
  Type.String({ pattern: '^#(?:[0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$', description: 'hex colour like #1a73e8' }),
);
const Url = Nullable(Type.String({ minLength: 1, maxLength: 2048 }));
const SocialLinks = Type.Object(Object.fromEntries(SOCIAL_LINKS.map((name) => [name, Type.Optional(Url)])), {
  additionalProperties: false,
});

/** Branding and settings fields, stored together in the tenant's `settings`. */
const settingsFields = {
  logo: Type.Optional(Url),
  timezone: Type.Optional(Nullable(Type.String({ description: 'IANA time zone name' }))),
  blocked_channels: Type.Optional(
    Type.Array(Type.Union(CHANNEL_NAMES.map((name) => Type.Literal(name))), { uniqueItems: true }),
  ),
  embedded_preference_url: Type.Optional(Url),
  hosted_preference_domain: Type.Optional(Url),
  primary_color: Type.Optional(Color),
  secondary_color: Type.Optional(Color),
  tertiary_color: Type.Optional(Color),
  social_links: Type.Optional(SocialLinks),
};
export const SETTINGS_KEYS = Object.keys(settingsFields) as (keyof typeof settingsFields)[];

/** Ours: 1 to 64 characters without spaces or slashes. */
export const TenantIdParamsSchema = Type.Object({
  tenant_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[^\\s/]+$' }),
});

export const TenantUpsertBodySchema = Type.Object(
  {
    tenant_name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, description: 'defaults to tenant_id on creation' }),
    ),
    ...settingsFields,
    properties: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: 'merged into the stored properties at the first level',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Fields given replace the stored ones (null clears); fields left out are kept.',
  },
);
export type TenantUpsertBody = Static<typeof TenantUpsertBodySchema>;

export const TenantSchema = Type.Object(
  {
    tenant_id: Type.String(),
    tenant_name: Type.String(),
    logo: Url,
    timezone: Nullable(Type.String()),
    blocked_channels: Type.Array(Type.String()),
    embedded_preference_url: Url,
    hosted_preference_domain: Url,
    primary_color: Nullable(Type.String()),
    secondary_color: Nullable(Type.String()),
    tertiary_color: Nullable(Type.String()),
    social_links: Type.Record(Type.String(), Nullable(Type.String())),
    properties: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Tenant', title: 'Tenant' },
);
