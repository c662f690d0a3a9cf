import { Type } from '@sinclair/typebox';
import { Timestamp } from './common.js';
import { ENTITY_ID_LIMITS, OBJECT_TYPE_PATTERN } from './identifiers.js';
import { CHANNEL_KEYS } from './users.js';

/** Ours: a plural namespace word — lowercase letters, digits, `_` and `-`, at most 64 characters. */
export const ObjectTypeSchema = Type.String({
  pattern: OBJECT_TYPE_PATTERN,
  description: 'plural namespace word, e.g. teams, organizations',
});
/** Ours: like a distinct_id, 1 to 256 characters, not only spaces, case-sensitive. */
export const ObjectIdSchema = Type.String({
  ...ENTITY_ID_LIMITS,
  description: "the object's identifier in the caller's system",
});

export const ObjectTypeParamsSchema = Type.Object({ object_type: ObjectTypeSchema });
export const ObjectParamsSchema = Type.Object({ object_type: ObjectTypeSchema, id: ObjectIdSchema });

export const BulkDeleteObjectsBodySchema = Type.Object({
  object_ids: Type.Array(ObjectIdSchema, { minItems: 1, maxItems: 1000 }),
});

const channelArrays = Object.fromEntries(
  CHANNEL_KEYS.map((key) => [key, Type.Optional(Type.Array(Type.Ref('ChannelEntry')))]),
);

export const ObjectSchema = Type.Object(
  {
    object_type: Type.String(),
    id: Type.String(),
    subscriptions_count: Type.Integer({ description: 'direct subscribers (users and child objects)' }),
    properties: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
    updated_at: Timestamp,
    ...channelArrays,
  },
  { $id: 'Object', title: 'Object', description: 'A channel key appears only when the object has entries for it.' },
);

/** The short object shape a Subscription carries. */
export const ObjectSummarySchema = Type.Object({
  id: Type.String(),
  object_type: Type.String(),
  subscriptions_count: Type.Integer(),
  updated_at: Timestamp,
});
