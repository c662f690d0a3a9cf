import { Type, type TSchema } from '@sinclair/typebox';
import { ref } from './common.js';
import {
  ENTITY_ID_LIMITS,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  OBJECT_TYPE_PATTERN,
  TENANT_ID_MAX_LENGTH,
  WORKFLOW_SLUG_MAX_LENGTH,
} from './identifiers.js';
import { DistinctIdSchema } from './users.js';

/** Nullable for the schemas the trigger readers compile with TypeBox (common.ts's Nullable is for Ajv). */
const OrNull = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** At most this many records in one trigger call, and recipients in one record. */
export const MAX_TRIGGER_RECORDS = 100;
export const MAX_TRIGGER_RECIPIENTS = 100;
/** The byte limit of a trigger call's body, whatever it holds (413 beyond): both trigger routes'. */
export const TRIGGER_BODY_LIMIT = 800 * 1024;

/** The trigger calls (docs/spec/engine.md §1). */

export const FailErrorSchema = Type.Object(
  { status: Type.Literal('fail'), message: Type.String() },
  { $id: 'FailError', title: 'Trigger error', description: 'the error body of the trigger calls' },
);

/** Every error status a trigger call may answer, in its own shape. */
export const failErrors = (...statuses: number[]) =>
  Object.fromEntries([...new Set([...statuses, 400, 401, 413, 415, 429, 503])].map((s) => [s, ref(FailErrorSchema)]));

const ObjectIdSchema = Type.String({ ...ENTITY_ID_LIMITS, description: "the object's id" });
const ObjectTypeSchema = Type.String({ pattern: OBJECT_TYPE_PATTERN, description: 'the object type' });
const TextKey = Type.String({ minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH });

/** A recipient named by its distinct_id, or an inline user (its other keys: channels and properties). */
export const UserRecipientSchema = Type.Object(
  { distinct_id: DistinctIdSchema, is_transient: Type.Optional(OrNull(Type.Boolean())) },
  { description: 'an inline user: its channels and properties are stored first, unless is_transient' },
);
/** A transient user without a distinct_id: its channels and properties serve its run only. */
export const TransientRecipientSchema = Type.Object(
  { is_transient: Type.Literal(true), distinct_id: Type.Optional(Type.Null()) },
  { description: 'a transient user without distinct_id ($email, $sms, … and properties): no profile is created' },
);
export const ObjectRecipientSchema = Type.Object(
  { object_type: ObjectTypeSchema, id: ObjectIdSchema },
  { description: 'an object and its subscribers' },
);
const Recipient = Type.Union([
  Type.String({ ...ENTITY_ID_LIMITS, description: 'a distinct_id' }),
  UserRecipientSchema,
  TransientRecipientSchema,
  ObjectRecipientSchema,
]);

export const TriggerRecordSchema = Type.Object(
  {
    workflow: Type.String({ minLength: 1, maxLength: WORKFLOW_SLUG_MAX_LENGTH, description: 'the workflow slug' }),
    recipients: Type.Array(Recipient, { minItems: 1, maxItems: MAX_TRIGGER_RECIPIENTS }),
    data: Type.Optional(OrNull(Type.Record(Type.String(), Type.Unknown()))),
    actor: Type.Optional(OrNull(Type.Union([Type.String({ ...ENTITY_ID_LIMITS }), UserRecipientSchema]))),
    tenant_id: Type.Optional(OrNull(Type.String({ minLength: 1, maxLength: TENANT_ID_MAX_LENGTH }))),
    $idempotency_key: Type.Optional(OrNull(TextKey)),
    cancellation_key: Type.Optional(OrNull(TextKey)),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { title: 'Trigger record' },
);

export const TriggerBodySchema = Type.Union([
  TriggerRecordSchema,
  Type.Array(TriggerRecordSchema, { minItems: 1, maxItems: MAX_TRIGGER_RECORDS }),
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
    users: Type.Array(Type.Record(Type.String(), Type.Unknown()), { minItems: 1, maxItems: MAX_TRIGGER_RECIPIENTS }),
    data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    delay: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    trigger_at: Type.Optional(Type.String()),
    delivery: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    tenant_id: Type.Optional(Type.String({ maxLength: TENANT_ID_MAX_LENGTH })),
    brand_id: Type.Optional(Type.String({ maxLength: TENANT_ID_MAX_LENGTH })),
    $idempotency_key: Type.Optional(Type.String({ maxLength: IDEMPOTENCY_KEY_MAX_LENGTH })),
  },
  { title: 'Dynamic workflow (legacy)' },
);

export const CancelBodySchema = Type.Object(
  {
    execution_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    recipients: Type.Optional(Type.Array(DistinctIdSchema, { minItems: 1, maxItems: MAX_TRIGGER_RECIPIENTS })),
    idempotency_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    workflow_slug: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    cancellation_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  },
  { additionalProperties: false },
);

export const CancelResultSchema = Type.Object({ execution_ids: Type.Array(Type.String()) });
