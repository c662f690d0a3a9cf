import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';
import { DistinctIdSchema } from './users.js';
import { LIST_ID_PATTERN } from './identifiers.js';

/** Ours: 1 to 128 characters without spaces or slashes, case-sensitive. */
export const ListIdSchema = Type.String({
  minLength: 1,
  maxLength: 128,
  pattern: LIST_ID_PATTERN,
  description: 'the list identifier; 1 to 128 characters without spaces or slashes',
});
/** Version ids are ULIDs made by start_sync. */
export const VersionIdSchema = Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9A-Za-z]+$' });

export const ListParamsSchema = Type.Object({ list_id: ListIdSchema });
export const ListVersionParamsSchema = Type.Object({ list_id: ListIdSchema, version_id: VersionIdSchema });

export const CreateListBodySchema = Type.Object(
  {
    list_id: ListIdSchema,
    list_name: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'defaults to list_id' })),
    list_description: Type.Optional(Nullable(Type.String({ maxLength: 1024 }))),
    track_user_entry: Type.Optional(
      Type.Boolean({ description: 'record `$USER_ENTERED_LIST - <list_id>` when a user joins the live list' }),
    ),
    track_user_exit: Type.Optional(
      Type.Boolean({ description: 'record `$USER_EXITED_LIST - <list_id>` when a user leaves the live list' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Creates the list, or updates the fields given when list_id exists (ours).',
  },
);

export const ListMembersBodySchema = Type.Object(
  { distinct_ids: Type.Array(DistinctIdSchema, { maxItems: 1000 }) },
  { additionalProperties: false },
);

export const ListDraftSchema = Type.Object({
  version_id: Type.String(),
  subscribers_count: Type.Integer(),
  created_at: Timestamp,
});

const listFields = {
  list_id: Type.String(),
  list_name: Type.String(),
  list_description: Nullable(Type.String()),
  list_type: Type.Literal('static_list'),
  subscribers_count: Type.Integer({ description: 'members of the live list' }),
  source: Nullable(Type.String()),
  is_readonly: Type.Boolean(),
  track_user_entry: Type.Boolean(),
  track_user_exit: Type.Boolean(),
  requested_for_delete: Type.Boolean({ description: 'always false: Herald deletes a list at once' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const SubscriberListSchema = Type.Object(
  {
    ...listFields,
    status: Type.Literal('active'),
    version_id: Type.Null(),
    drafts: Nullable(Type.Array(ListDraftSchema, { description: 'draft versions started by start_sync' })),
  },
  { $id: 'SubscriberList', title: 'Subscriber list' },
);

/** A list seen through one of its draft versions: what start_sync and GET version answer. */
export const SubscriberListVersionSchema = Type.Object(
  {
    ...listFields,
    subscribers_count: Type.Integer({ description: 'members of this draft version' }),
    status: Type.Literal('draft'),
    version_id: Type.String({ description: 'pass to the version endpoints, then to finish_sync' }),
  },
  { $id: 'SubscriberListVersion', title: 'Subscriber list draft version' },
);

export const MembershipChangeSchema = Type.Object({
  success: Type.Literal(true),
  affected_count: Type.Integer({ description: 'members actually added or removed' }),
});

export const SuccessSchema = Type.Object({ success: Type.Literal(true) });

export const ListSubscriberSchema = Type.Object(
  {
    id: Type.String({ description: 'the membership id' }),
    distinct_id: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'ListSubscriber', title: 'List subscriber' },
);

export const SubscribedToListSchema = Type.Object(
  {
    list: Type.Object({
      list_id: Type.String(),
      list_name: Type.String(),
      list_description: Nullable(Type.String()),
      list_type: Type.Literal('static_list'),
      source: Nullable(Type.String()),
      subscribers_count: Type.Integer(),
      updated_at: Timestamp,
    }),
    created_at: Timestamp,
  },
  { $id: 'SubscribedToList', title: 'List a user belongs to' },
);
