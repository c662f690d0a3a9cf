import { Type } from '@sinclair/typebox';
import { Nullable, OffsetQuerySchema, Timestamp, WorkspaceParamsSchema } from './common.js';
import { CommitMessage, modeQuery } from './versioning.js';

export const PAYLOAD_SCHEMA_SLUG_PATTERN = '^[a-z0-9][a-z0-9_-]{0,63}$';

export const PayloadSchemaParamsSchema = Type.Object({
  ...WorkspaceParamsSchema.properties,
  schema_slug: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: PAYLOAD_SCHEMA_SLUG_PATTERN,
    description: 'lowercase letters, digits, _ and -',
  }),
});

export const PayloadSchemaBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    json_schema: Type.Record(Type.String(), Type.Unknown(), {
      description: 'a JSON Schema (draft 2020-12) that trigger payloads of linked events must satisfy',
    }),
  },
  { additionalProperties: false },
);

export const PayloadSchemaUpsertQuerySchema = Type.Object({
  commit: Type.Boolean({ default: false, description: 'commit right away' }),
  commit_message: Type.Optional(CommitMessage),
});
export const PayloadSchemaModeQuerySchema = Type.Object({ mode: modeQuery('draft') });
export const PayloadSchemaListQuerySchema = Type.Object({
  ...OffsetQuerySchema.properties,
  mode: modeQuery('draft'),
});

export const PayloadSchemaSchema = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    status: Type.String({ enum: ['draft', 'live'], description: 'live when what is shown is the live version' }),
    hash: Type.String({ description: 'changes whenever name or json_schema change' }),
    json_schema: Type.Record(Type.String(), Type.Unknown()),
    version_no: Nullable(Type.Integer({ description: 'the live version number; null when never committed' })),
    created_at: Timestamp,
    updated_at: Timestamp,
    committed_at: Nullable(Timestamp),
    commit_message: Nullable(Type.String()),
  },
  { $id: 'PayloadSchema', title: 'Payload schema' },
);

export const PayloadSchemaUpsertResultSchema = Type.Object({
  ...PayloadSchemaSchema.properties,
  commit_result: Nullable(
    Type.Object(
      { is_committed: Type.Boolean(), errors: Type.Array(Type.String()) },
      { description: 'with ?commit=true' },
    ),
  ),
});

export const LinkedPayloadSchemaSchema = Type.Object(
  {
    slug: Type.String(),
    version_no: Nullable(Type.Integer({ description: 'the pinned version; null: the links follow the live one' })),
    name: Type.String(),
    description: Nullable(Type.String({ description: 'always null: Herald schemas have no description' })),
    json_schema: Type.Record(Type.String(), Type.Unknown(), {
      description: 'the version the links resolve to (the draft while the schema was never committed)',
    }),
    linked_workflows: Type.Array(Type.String(), { description: 'slugs of workflows whose trigger data it checks' }),
    linked_events: Type.Array(Type.String(), { description: 'names of registered events linking it' }),
    created_at: Timestamp,
  },
  { $id: 'LinkedPayloadSchema', title: 'Linked payload schema' },
);
