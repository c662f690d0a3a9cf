import { Type } from '@sinclair/typebox';
import type { ObjectRow } from '../repositories/objects.js';
import { iso, Timestamp } from './common.js';
import { CHANNEL_KEYS } from './users.js';

/** Ours: a plural namespace word — lowercase letters, digits, `_` and `-`, at most 64 characters. */
export const ObjectTypeSchema = Type.String({ pattern: '^[a-z0-9_-]{1,64}$', description: 'plural namespace word, e.g. teams, organizations' });
/** Ours: like a distinct_id, 1 to 256 characters, not only spaces, case-sensitive. */
export const ObjectIdSchema = Type.String({ minLength: 1, maxLength: 256, pattern: '\\S', description: "the object's identifier in the caller's system" });

export const ObjectTypeParamsSchema = Type.Object({ object_type: ObjectTypeSchema });
export const ObjectParamsSchema = Type.Object({ object_type: ObjectTypeSchema, id: ObjectIdSchema });

export const BulkDeleteObjectsBodySchema = Type.Object({ object_ids: Type.Array(ObjectIdSchema, { minItems: 1, maxItems: 1000 }) });

const channelArrays = Object.fromEntries(CHANNEL_KEYS.map((key) => [key, Type.Optional(Type.Array(Type.Ref('ChannelEntry')))]));

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

export const objectLabel = (ref: { objectType: string; objectId: string }) => `${ref.objectType}/${ref.objectId}`;

export function presentObject(row: ObjectRow) {
  const channels = Object.fromEntries(Object.entries(row.channels).filter(([, entries]) => entries.length > 0));
  return {
    object_type: row.object_type,
    id: row.object_id,
    subscriptions_count: row.subscriptions_count,
    properties: row.properties,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...channels,
  };
}

export const summarizeObject = (row: Pick<ObjectRow, 'object_type' | 'object_id' | 'subscriptions_count' | 'updated_at'>) => ({
  id: row.object_id,
  object_type: row.object_type,
  subscriptions_count: row.subscriptions_count,
  updated_at: iso(row.updated_at),
});
