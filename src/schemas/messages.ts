import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Timestamp } from './common.js';
import { CursorQuerySchema } from './cursor.js';

/** Messages: the record of every decision and delivery (docs/spec/engine.md §5). */

export const MESSAGE_STATUSES = [
  'to_be_triggered',
  'not_to_be_triggered',
  'triggered',
  'trigger_failed',
  'sent_by_vendor',
  'delivered',
  'delivery_failure',
  'seen',
  'read',
  'clicked',
  'dismissed',
] as const;
export const MESSAGE_ACTIONS = ['seen', 'clicked', 'dismissed', 'read', 'unread', 'archived', 'unarchived'] as const;

const NullableTime = Nullable(Timestamp);

/** The template version and variant a message was rendered from (messages.template). */
const MessageTemplateSchema = Type.Object({
  slug: Type.String(),
  version_no: Type.Integer(),
  variant_id: Type.String(),
});
export type MessageTemplate = Static<typeof MessageTemplateSchema>;

/**
 * One delivery attempt as its message stores it (messages.attempts, oldest first) and `delivery_attempts` shows it:
 * through a vendor (`vendor` absent on attempts stored before failover existed) or `stored` in the inbox.
 */
export type DeliveryAttempt = {
  at: string;
  outcome: 'sent' | 'retry' | 'failed' | 'stored';
  vendor?: { id: string; name: string; nickname: string | null };
  ms?: number;
  reason?: string;
  provider_response?: unknown;
};

export const MessageSchema = Type.Object(
  {
    message_id: Type.String(),
    execution_id: Type.String({ description: "the recipient's run" }),
    parent_execution_id: Type.String({ description: 'the trigger (the message_id of its 202)' }),
    workflow: Type.Object({ slug: Type.String(), version_id: Type.String(), node_ref: Type.String() }),
    recipient: Type.Object({
      $type: Type.String({ enum: ['user', 'object'] }),
      distinct_id: Type.Optional(Type.String()),
      object_type: Type.Optional(Type.String()),
      id: Type.Optional(Type.String()),
    }),
    channel: Type.String(),
    channel_identity: Type.Unknown(),
    tenant_id: Type.String(),
    is_campaign: Type.Boolean({ description: 'sent as part of a broadcast' }),
    category: Type.String(),
    idempotency_key: Nullable(Type.String()),
    status: Type.String({ enum: [...MESSAGE_STATUSES] }),
    reason: Nullable(Type.String()),
    vendor: Nullable(Type.Object({ name: Type.String(), nickname: Nullable(Type.String()) })),
    template: Nullable(MessageTemplateSchema),
    content: Nullable(Type.Record(Type.String(), Type.Unknown())),
    error: Type.Unknown(),
    attempts: Type.Integer({ description: 'delivery attempts made' }),
    delivery_attempts: Type.Array(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          '{at, outcome (sent | retry | failed | stored), ms, reason, provider_response, vendor when recorded}',
      }),
      { description: 'every delivery attempt, oldest first (ours)' },
    ),
    is_read: Type.Boolean(),
    is_archived: Type.Boolean(),
    created_at: Timestamp,
    triggered_at: NullableTime,
    sent_at: NullableTime,
    delivered_at: NullableTime,
    seen_at: NullableTime,
    read_at: NullableTime,
    clicked_at: NullableTime,
    dismissed_at: NullableTime,
    archived_at: NullableTime,
  },
  { $id: 'Message', title: 'Message' },
);

const Multi = (item = Type.String({ minLength: 1, maxLength: 255 })) =>
  Type.Optional(Type.Array(item, { maxItems: 100 }));

export const MessageListQuerySchema = Type.Composite([
  CursorQuerySchema,
  Type.Object({
    'status[]': Multi(Type.String({ enum: [...MESSAGE_STATUSES] })),
    status: Multi(Type.String({ enum: [...MESSAGE_STATUSES] })),
    channel: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    'recipient_id[]': Multi(),
    recipient_id: Multi(),
    'category[]': Multi(),
    category: Multi(),
    workflow_slug: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    execution_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    is_campaign: Type.Optional(Type.Boolean({ description: 'true: only messages of broadcasts; false: none of them' })),
    object_type: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    object_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    created_at_gte: Type.Optional(Type.String({ format: 'date-time' })),
    created_at_lte: Type.Optional(Type.String({ format: 'date-time' })),
    order: Type.Optional(
      Type.String({ enum: ['asc', 'desc'], description: 'asc (the default): oldest first; desc: newest first' }),
    ),
  }),
]);

export const MessageParamsSchema = Type.Object({ message_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const BulkMessageBodySchema = Type.Object({
  messages: Type.Array(
    Type.Object({
      message_id: Type.String({ minLength: 1, maxLength: 64 }),
      action: Type.String({ enum: [...MESSAGE_ACTIONS] }),
    }),
    { minItems: 1, maxItems: 1000 },
  ),
});

export const BulkMessageResultSchema = Type.Object({
  records: Type.Array(
    Type.Object({
      message_id: Type.String(),
      status_code: Type.Integer({ enum: [202, 404, 422] }),
      error: Nullable(Type.Object({ type: Type.String(), message: Type.String() })),
    }),
  ),
});
