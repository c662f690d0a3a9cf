import { Type } from '@sinclair/typebox';
import { ref } from './common.js';
import { EditOperationSchema } from './entity-operations.js';
import { EVENT_NAME_MAX_LENGTH } from './identifiers.js';
import { DistinctIdSchema } from './users.js';

/** Event names starting with `$` or `ss_` belong to the platform (docs/spec/compat.md). */
export const isReservedEventName = (name: string) => name.startsWith('$') || name.toLowerCase().startsWith('ss_');

const InsertId = Type.String({
  minLength: 1,
  maxLength: 256,
  description: 'a record sent again with the same id is stored once',
});
// Up to the end of year 9999: both engines store that, and nothing later is a real event time.
const Time = Type.Number({
  minimum: 0,
  maximum: 253_402_300_799_999,
  description: 'when it happened, in milliseconds since the epoch, before year 10000 (default: now)',
});
const Env = Type.String({ maxLength: 256, description: 'the workspace key the SDK was set up with (informational)' });

export const TrackRecordSchema = Type.Object(
  {
    event: Type.String({
      minLength: 1,
      maxLength: EVENT_NAME_MAX_LENGTH,
      description: 'not starting with $ or ss_ (reserved)',
    }),
    distinct_id: DistinctIdSchema,
    properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    $insert_id: Type.Optional(InsertId),
    $idempotency_key: Type.Optional(InsertId),
    $time: Type.Optional(Time),
    env: Type.Optional(Env),
    tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    brand_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'older SDKs: same as tenant_id' })),
  },
  { title: 'Track record' },
);

export const UserEditRecordSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    distinct_id: DistinctIdSchema,
    $user_operations: Type.Array(ref(EditOperationSchema), {
      maxItems: 100,
      description: 'applied like PATCH /v1/user/{distinct_id}/; creates the user when missing',
    }),
    properties: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    $insert_id: Type.Optional(InsertId),
    $time: Type.Optional(Time),
    env: Type.Optional(Env),
  },
  { title: 'User edit record' },
);

/** A list holds at most 100 records when any of them tracks an event (the SDKs' event batches). */
export const MAX_EVENT_RECORDS = 100;
/**
 * A list of user-edit records only may hold up to 400: the Node SDK's bulk user edit sends that many
 * identity records per call (its MAX_IDENTITY_EVENTS_IN_BULK_API), each at most 10 KB, in 800 KB.
 */
export const MAX_USER_EDIT_RECORDS = 400;
/** The body's byte limit, whatever it holds (413 beyond). */
export const EVENT_BODY_LIMIT = 800 * 1024;

const EventRecordSchema = Type.Union([TrackRecordSchema, UserEditRecordSchema]);
export const EventsBodySchema = Type.Union(
  [
    EventRecordSchema,
    Type.Array(EventRecordSchema, { minItems: 1, maxItems: MAX_EVENT_RECORDS }),
    // The published schema says what the reader allows: more than 100 only when every record is a user edit.
    Type.Array(UserEditRecordSchema, { minItems: 1, maxItems: MAX_USER_EDIT_RECORDS }),
  ],
  {
    description:
      'One record or a list of up to 100, or up to 400 when every record is a user edit (800 KB at most); a list is accepted or rejected as a whole.',
  },
);

export const EventsAcceptedSchema = Type.Object({
  success: Type.Boolean(),
  tracked: Type.Integer({ description: 'track records stored' }),
  duplicates: Type.Integer({
    description: 'track records already stored under the same $insert_id / $idempotency_key',
  }),
  user_edits: Type.Integer({ description: 'user-edit records applied' }),
});
