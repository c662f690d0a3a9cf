import { Type, type Static } from '@sinclair/typebox';
import { ActorSchema, Nullable, OffsetQuerySchema, ref, Timestamp, WorkspaceParamsSchema } from './common.js';
import { WORKFLOW_SLUG_MAX_LENGTH } from './identifiers.js';
import {
  CommitMessage,
  CommitMessageQuerySchema,
  CommitQuerySchema,
  modeQuery,
  ValidationResultSchema,
} from './versioning.js';

export const TRIGGER_TYPES = ['api', 'event'] as const;

export const WorkflowParamsSchema = Type.Composite([
  WorkspaceParamsSchema,
  Type.Object({
    slug: Type.String({
      minLength: 1,
      maxLength: WORKFLOW_SLUG_MAX_LENGTH,
      description: "the workflow's unique identifier",
    }),
  }),
]);

const WorkflowPayloadSchemaLink = Type.Object(
  {
    schema: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'a committed payload schema (management schemas)',
    }),
    version_no: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, description: 'a committed version; absent or null: the live one' })),
    ),
  },
  {
    additionalProperties: false,
    description: "the payload schema every API trigger's data must satisfy (checked at trigger, 400 naming the field)",
  },
);

const WorkflowRateLimitSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 1, description: 'runs admitted per recipient within the window' }),
    sliding_window: Type.String({ minLength: 1, maxLength: 64, description: 'a duration: `00d00h01m00s`, `1h`, …' }),
  },
  { description: "at most `count` runs per recipient in any sliding window; the others' deliveries are rate_limited" },
);
const WorkflowConditionsSchema = Type.Array(Type.Unknown(), {
  maxItems: 20,
  description: 'expression_v1 conditions: the workflow runs for a recipient when any holds, else the run is skipped',
});

/**
 * A workflow's editable content. `ratelimit` and `conditions` are where the hosted platform's
 * OpenAPI puts them (WorkflowCreateUpdate); (ours) they are stored in the tree, where the engine
 * reads them and where older exports had them, and a body that gives one in both places with
 * different values is refused (400). Other fields of the hosted platform's workflow that Herald
 * does not model (overrides, …) are accepted and ignored, so a workflow read with GET can be
 * posted back unchanged.
 */
export const WorkflowBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  category: Type.String({
    minLength: 1,
    maxLength: 255,
    description: 'a root or sub category of the live preference categories',
  }),
  trigger_type: Type.Unsafe<(typeof TRIGGER_TYPES)[number]>(Type.String({ enum: [...TRIGGER_TYPES] })),
  tree: Type.Unknown({ description: 'the node tree: an object with a nodes array' }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
  is_enabled: Type.Optional(
    Nullable(Type.Boolean({ description: 'applies to the workflow at once, not at commit; null: unchanged' })),
  ),
  tags: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 }))),
  trigger_events: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 100 }))),
  payload_schema: Type.Optional(Nullable(WorkflowPayloadSchemaLink)),
  ratelimit: Type.Optional(Nullable(WorkflowRateLimitSchema)),
  conditions: Type.Optional(Nullable(WorkflowConditionsSchema)),
});
export type WorkflowBody = Static<typeof WorkflowBodySchema>;

export const WorkflowListQuerySchema = Type.Composite([
  OffsetQuerySchema,
  Type.Object({
    mode: modeQuery('draft'),
    slugs: Type.Optional(Type.String({ maxLength: 10_000, description: 'comma-separated workflow slugs to keep' })),
  }),
]);
export const WorkflowModeQuerySchema = Type.Object({ mode: modeQuery('draft') });
export const WorkflowUpsertQuerySchema = CommitQuerySchema;
export const WorkflowCommitQuerySchema = CommitMessageQuerySchema;
export const WorkflowCommitBodySchema = Type.Union([
  Type.Object({ commit_message: Type.Optional(CommitMessage) }),
  Type.Null(),
]);
export const WorkflowEnableBodySchema = Type.Object({ is_enabled: Type.Boolean() }, { additionalProperties: false });

export const WorkflowSchema = Type.Object(
  {
    slug: Type.String(),
    name: Type.String(),
    description: Nullable(Type.String()),
    category: Type.String(),
    tags: Type.Array(Type.String()),
    trigger_type: Type.String(),
    trigger_events: Type.Array(Type.String()),
    payload_schema: Nullable(WorkflowPayloadSchemaLink),
    tree: Type.Unknown(),
    is_enabled: Type.Boolean(),
    status: Type.String({
      enum: ['draft', 'active', 'inactive'],
      description: 'draft mode: draft; live mode: active or inactive (disabled)',
    }),
    version_no: Type.Integer({ description: 'live: the committed version; draft: the number its commit will get' }),
    commit_message: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
    updated_by: ref(ActorSchema),
    active_at: Nullable(Timestamp),
    last_executed_at: Nullable(Timestamp),
    validation_result: ref(ValidationResultSchema),
  },
  { $id: 'Workflow', title: 'Workflow' },
);

/** The versioned part of a workflow: what a commit snapshots. */
export interface WorkflowContent {
  name: string;
  description: string | null;
  category: string;
  trigger_type: string;
  trigger_events: string[];
  tags: string[];
  tree: unknown;
  payload_schema: { schema: string; version_no: number | null } | null;
}
