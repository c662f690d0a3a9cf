import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from './common.js';
import { ENTITY_ID_LIMITS } from './identifiers.js';

/** Channel keys a user (or object) may carry, as they appear in the API. */
export const CHANNEL_KEYS = [
  '$email',
  '$sms',
  '$whatsapp',
  '$inbox',
  '$webpush',
  '$androidpush',
  '$iospush',
  '$slack',
  '$ms_teams',
] as const;
export type ChannelKey = (typeof CHANNEL_KEYS)[number];

export const ChannelEntrySchema = Type.Object(
  {
    value: Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown())]),
    status: Type.String({ description: 'active or inactive' }),
    perma_status: Type.String({ description: 'active or disabled' }),
    id_provider: Type.Optional(Type.String()),
  },
  { $id: 'ChannelEntry', title: 'Channel entry' },
);
export type ChannelEntry = Static<typeof ChannelEntrySchema>;

const channelArrays = Object.fromEntries(
  CHANNEL_KEYS.map((key) => [key, Type.Optional(Type.Array(Type.Ref('ChannelEntry')))]),
);

export const UserSchema = Type.Object(
  {
    distinct_id: Type.String(),
    properties: Type.Record(Type.String(), Type.Unknown(), {
      description: 'custom and reserved ($locale, $timezone, …) properties',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    ...channelArrays,
  },
  { $id: 'User', title: 'User', description: 'A channel key appears only when the user has entries for it.' },
);

/** Ours: 1 to 256 characters, not only spaces; case-sensitive, any character. */
export const DistinctIdSchema = Type.String({
  ...ENTITY_ID_LIMITS,
  description: "the user's identifier in the caller's system; case-sensitive",
});

export const DistinctIdParamsSchema = Type.Object({ distinct_id: DistinctIdSchema });

export const BulkDeleteUsersBodySchema = Type.Object({
  distinct_ids: Type.Array(DistinctIdSchema, { minItems: 1, maxItems: 1000 }),
});
