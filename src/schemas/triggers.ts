import { Type } from '@sinclair/typebox';
import { ref } from './common.js';

/** The trigger calls (docs/spec/engine.md §1). */

export const FailErrorSchema = Type.Object(
  { status: Type.Literal('fail'), message: Type.String() },
  { $id: 'FailError', title: 'Trigger error', description: 'the error body of the trigger calls' },
);

/** Every error status a trigger call may answer, in its own shape. */
export const failErrors = (...statuses: number[]) =>
  Object.fromEntries([...new Set([...statuses, 400, 401, 413, 415, 429, 503])].map((s) => [s, ref(FailErrorSchema)]));

const Recipient = Type.Union([
  Type.String({ description: 'a distinct_id' }),
  Type.Object(
    { distinct_id: Type.String(), is_transient: Type.Optional(Type.Boolean()) },
    { description: 'an inline user: its channels and properties are stored first, unless is_transient' },
  ),
  Type.Object({ object_type: Type.String(), id: Type.String() }, { description: 'an object and its subscribers' }),
]);

export const TriggerRecordSchema = Type.Object(
  {
    workflow: Type.String({ description: 'the workflow slug' }),
    recipients: Type.Array(Recipient, { minItems: 1, maxItems: 100 }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    actor: Type.Optional(Type.Union([Type.String(), Type.Object({ distinct_id: Type.String() })])),
    tenant_id: Type.Optional(Type.String({ maxLength: 64 })),
    $idempotency_key: Type.Optional(Type.String({ maxLength: 255 })),
    cancellation_key: Type.Optional(Type.String({ maxLength: 255 })),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'Trigger record' },
);

export const TriggerBodySchema = Type.Union([
  TriggerRecordSchema,
  Type.Array(TriggerRecordSchema, { minItems: 1, maxItems: 100 }),
]);

export const TriggerAcceptedSchema = Type.Object({
  message_id: Type.String({ description: 'the execution id: cancel and message filters find it' }),
  status: Type.Literal('success'),
});

export const TriggerBulkSchema = Type.Object({
  status: Type.Literal('success'),
  records: Type.Array(
    Type.Object({
      status: Type.String({ enum: ['success', 'error'] }),
      status_code: Type.Integer(),
      message_id: Type.Optional(Type.String()),
      error: Type.Optional(Type.Object({ message: Type.String(), type: Type.String() })),
    }),
  ),
});

export const LegacyTriggerParamsSchema = Type.Object({ workspace_key: Type.String({ minLength: 1, maxLength: 255 }) });

export const LegacyTriggerBodySchema = Type.Object(
  {
    name: Type.String(),
    template: Type.String(),
    notification_category: Type.String(),
    users: Type.Array(Type.Record(Type.String(), Type.Unknown()), { minItems: 1, maxItems: 100 }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    delay: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    trigger_at: Type.Optional(Type.String()),
    delivery: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    tenant_id: Type.Optional(Type.String({ maxLength: 64 })),
    brand_id: Type.Optional(Type.String({ maxLength: 64 })),
    $idempotency_key: Type.Optional(Type.String({ maxLength: 255 })),
  },
  { title: 'Dynamic workflow (legacy)' },
);

export const CancelBodySchema = Type.Object(
  {
    execution_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    recipients: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 100 }),
    ),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    workflow_slug: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    cancellation_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const CancelResultSchema = Type.Object({ execution_ids: Type.Array(Type.String()) });
