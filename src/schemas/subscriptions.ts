import { Type } from '@sinclair/typebox';
import { Nullable, ref, Timestamp } from './common.js';
import { ObjectSummarySchema } from './objects.js';

const stringList = Type.Optional(Type.Array(Type.String()));

/** A recipient given inline: the user is created or updated with these channels and properties. */
const InlineRecipientSchema = Type.Object(
  {
    distinct_id: Type.Optional(Type.String({ description: 'required for a user recipient' })),
    $email: stringList,
    $sms: stringList,
    $whatsapp: stringList,
    $inbox: stringList,
    $androidpush: stringList,
    $iospush: stringList,
    $slack: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: '{email, access_token}, …' }),
    ),
    $ms_teams: Type.Optional(
      Type.Array(Type.Record(Type.String(), Type.Unknown()), {
        description: '{tenant_id, service_url, conversation_id}',
      }),
    ),
    $locale: Type.Optional(Type.String()),
    $timezone: Type.Optional(Type.String()),
    object_type: Type.Optional(
      Type.String({ description: 'with id instead of distinct_id: a child object, which must exist' }),
    ),
    id: Type.Optional(Type.String()),
  },
  {
    additionalProperties: true,
    description: 'a user (distinct_id plus channels and properties) or a child object {object_type, id}',
  },
);

export const RecipientSchema = Type.Union([Type.String({ description: 'a distinct_id' }), InlineRecipientSchema]);

export const AddSubscriptionsBodySchema = Type.Object({
  recipients: Type.Array(RecipientSchema, { minItems: 1, maxItems: 100, description: '1 to 100' }),
  properties: Type.Optional(
    Type.Record(Type.String(), Type.Unknown(), { description: 'read in workflows as recipient.subscription.<key>' }),
  ),
});

export const DeleteSubscriptionsBodySchema = Type.Object({
  recipients: Type.Array(RecipientSchema, {
    minItems: 1,
    maxItems: 100,
    description: 'distinct_ids or {object_type, id}',
  }),
});

export const SubscriptionSchema = Type.Object(
  {
    properties: Type.Record(Type.String(), Type.Unknown()),
    user: Nullable(Type.Object({ distinct_id: Type.String(), updated_at: Timestamp })),
    object: Nullable(ObjectSummarySchema),
    child_object: Nullable(ObjectSummarySchema),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'Subscription',
    title: 'Subscription',
    description:
      '`object` is the object subscribed to (its subscriptions_count as of the response); the subscriber is `user` or, for an object subscriber, `child_object` (ours).',
  },
);

export const SubscribedToSchema = Type.Object(
  {
    properties: Type.Record(Type.String(), Type.Unknown()),
    object: ObjectSummarySchema,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'SubscribedTo', title: 'Subscribed-to object' },
);

export const AddSubscriptionsResultSchema = Type.Object({ results: Type.Array(ref(SubscriptionSchema)) });
