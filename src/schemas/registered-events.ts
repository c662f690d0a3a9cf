import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, WorkspaceParamsSchema } from './common.js';
import { PAYLOAD_SCHEMA_SLUG_PATTERN } from './payload-schemas.js';

const EventName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '\\S',
  description: 'the event name, URL-encoded in paths',
});

export const EventParamsSchema = Type.Object({
  ...WorkspaceParamsSchema.properties,
  url_encoded_event_name: EventName,
});

const PayloadSchemaLink = Type.Object(
  {
    schema: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: PAYLOAD_SCHEMA_SLUG_PATTERN,
      description: 'a committed payload schema',
    }),
    version_no: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: 2_147_483_647,
          description: 'pin a version; absent or null: the live one',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const CreateEventBodySchema = Type.Object(
  {
    name: EventName,
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    payload_schema: Type.Optional(Nullable(PayloadSchemaLink)),
  },
  { additionalProperties: false },
);

export const UpdateEventBodySchema = Type.Object(
  {
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    payload_schema: Type.Optional(Nullable(PayloadSchemaLink)),
  },
  { additionalProperties: false },
);

export const RegisteredEventSchema = Type.Object(
  {
    name: Type.String(),
    description: Nullable(Type.String()),
    payload_schema: Nullable(
      Type.Object({
        schema: Type.String(),
        version_no: Nullable(Type.Integer({ description: 'null: the live version' })),
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'RegisteredEvent', title: 'Registered event' },
);

export const LinkedWorkflowsSchema = Type.Object({
  results: Type.Array(Type.Object({ slug: Type.String(), usage: Type.Array(Type.String()) })),
});

export const BulkEventsBodySchema = Type.Object(
  {
    events: Type.Array(
      Type.Object(
        {
          name: EventName,
          description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
          payload_schema: Type.Optional(Nullable(PayloadSchemaLink)),
        },
        {
          description:
            'an event as a list or pull gives it: description and link replace the stored ones (absent: none); ' +
            'other keys (created_at, updated_at, …) are ignored',
        },
      ),
      { minItems: 1, maxItems: 1000 },
    ),
  },
  { additionalProperties: false },
);
