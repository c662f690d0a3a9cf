import { Type } from '@sinclair/typebox';
import { ListIdSchema } from './subscriber-lists.js';

/** Broadcasts (docs/spec/engine.md §1): a template to every live member of a subscriber list. */

/** The channels the official SDKs may name (their list_broadcast schema); Herald skips `messenger`. */
export const BROADCAST_CHANNELS = [
  'androidpush',
  'iospush',
  'webpush',
  'email',
  'sms',
  'whatsapp',
  'slack',
  'inbox',
  'messenger',
  'ms_teams',
] as const;

export const BroadcastParamsSchema = Type.Object({ workspace_key: Type.String({ minLength: 1, maxLength: 255 }) });

export const BroadcastBodySchema = Type.Object(
  {
    list_id: { ...ListIdSchema, description: 'the subscriber list whose live members are notified' },
    template: Type.String({ minLength: 1, maxLength: 255, description: 'the template slug' }),
    notification_category: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'the preference category every delivery is judged by',
    }),
    channels: Type.Optional(
      Type.Array(Type.String({ enum: [...BROADCAST_CHANNELS] }), {
        maxItems: BROADCAST_CHANNELS.length,
        description: 'only these channels; absent or empty: every channel the member has (inbox excepted)',
      }),
    ),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'the template variables' })),
    delay: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0 })], {
        description: '`XXdXXhXXmXXs`, or a number of seconds: the broadcast starts after it',
      }),
    ),
    trigger_at: Type.Optional(
      Type.String({ maxLength: 64, description: 'an ISO 8601 date-time: the broadcast starts then (wins over delay)' }),
    ),
    tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    brand_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the older name of tenant_id' })),
    $idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { title: 'Broadcast' },
);

export const BroadcastAcceptedSchema = Type.Object({
  status: Type.Literal('success'),
  message: Type.String({ description: 'Accepted - OK' }),
  message_id: Type.String({ description: "the broadcast's execution id: cancel and the message filters find it" }),
});

export const BroadcastCancelBodySchema = Type.Object(
  {
    execution_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    list_id: Type.Optional(ListIdSchema),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);
