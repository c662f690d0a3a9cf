import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, ref } from './common.js';
import { CursorQuerySchema } from './cursor.js';

/** Run traces: what happened to a trigger, run by run, step by step (docs/runs.md, docs/spec/product.md §1). */

export const EXECUTION_STATUSES = ['accepted', 'running', 'waiting', 'completed', 'cancelled', 'failed'] as const;
export const TRACE_RUN_STATUSES = ['running', 'waiting', 'completed', 'cancelled', 'failed', 'absorbed'] as const;

export const RunStepSchema = Type.Object(
  {
    node_ref: Nullable(
      Type.String({
        description: 'null for what the workflow decides before its nodes (conditions, ratelimit) and for a cancel',
      }),
    ),
    node_type: Type.String(),
    outcome: Type.String({
      enum: [
        'done',
        'skipped',
        'waiting_until',
        'batched',
        'digested',
        'branch_taken',
        'rate_limited',
        'cancelled',
        'failed',
        'delivered_messages',
      ],
    }),
    at: Timestamp,
    detail: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'RunStep', title: 'Run step' },
);

export const WorkflowExecutionSchema = Type.Object(
  {
    execution_id: Type.String({ description: 'the message_id the trigger answered with' }),
    workflow: Type.Object({ slug: Type.String(), version_id: Type.String() }),
    status: Type.String({ enum: [...EXECUTION_STATUSES] }),
    created_at: Timestamp,
    idempotency_key: Nullable(Type.String()),
    tenant_id: Type.String(),
    actor: Nullable(Type.Object({ distinct_id: Type.String() })),
    recipients_count: Type.Integer(),
  },
  { $id: 'WorkflowExecution', title: 'Workflow execution' },
);

export const WorkflowRunTraceSchema = Type.Object(
  {
    run_id: Type.String(),
    recipient: Type.Object({
      distinct_id: Type.Optional(Type.String()),
      object_type: Type.Optional(Type.String()),
      id: Type.Optional(Type.String()),
    }),
    status: Type.String({ enum: [...TRACE_RUN_STATUSES] }),
    absorbed_into: Type.Optional(
      Nullable(Type.String({ description: 'absorbed: the run carrying its batch or digest' })),
    ),
    steps: Type.Array(ref(RunStepSchema)),
  },
  { $id: 'WorkflowRunTrace', title: 'Workflow run trace' },
);

export const WorkflowExecutionTraceSchema = Type.Composite(
  [
    WorkflowExecutionSchema,
    Type.Object({
      runs: Type.Array(ref(WorkflowRunTraceSchema), { description: 'at most 1000, in the order they were made' }),
    }),
  ],
  { $id: 'WorkflowExecutionTrace', title: 'Workflow execution trace' },
);

const Text = (maxLength: number) => Type.Optional(Type.String({ minLength: 1, maxLength }));

export const WorkflowRunListQuerySchema = Type.Composite([
  CursorQuerySchema,
  Type.Object({
    workflow_slug: Text(255),
    recipient_id: Text(256),
    status: Type.Optional(Type.String({ enum: [...EXECUTION_STATUSES] })),
    created_at_gte: Type.Optional(Type.String({ format: 'date-time' })),
    created_at_lte: Type.Optional(Type.String({ format: 'date-time' })),
  }),
]);

export const WorkflowRunParamsSchema = Type.Object({ execution_id: Type.String({ minLength: 1, maxLength: 64 }) });

/** The workflow test run (docs/runs.md, docs/spec/product.md §3): one recipient, nothing written, sent or queued. */
export const WorkflowTestRunBodySchema = Type.Object({
  mode: Type.Optional(Type.String({ enum: ['draft', 'live'], description: 'the tree walked; default draft' })),
  recipient: Type.Union(
    [
      Type.String({ minLength: 1, maxLength: 256, description: "a stored user's distinct_id" }),
      Type.Object(
        { distinct_id: Type.String({ minLength: 1, maxLength: 256 }) },
        { description: 'an inline user: $email, $sms, … and properties, as a trigger takes it' },
      ),
    ],
    { description: 'the one recipient walked' },
  ),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  actor: Type.Optional(
    Type.Union([
      Type.String({ minLength: 1, maxLength: 256 }),
      Type.Object({ distinct_id: Type.String({ minLength: 1, maxLength: 256 }) }),
    ]),
  ),
  tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
});

export const TestRunDeliverySchema = Type.Object(
  {
    channel: Type.String(),
    channel_identity: Type.Unknown({ description: 'the address the channel would use; null when none' }),
    decision: Type.Object({
      send: Type.Boolean(),
      reason: Nullable(Type.String({ description: 'why not: the refusal reason a message would record' })),
    }),
    vendor: Nullable(
      Type.Object(
        { id: Type.String(), provider: Type.String(), nickname: Nullable(Type.String()) },
        {
          description: 'the vendor the delivery would go through (none for the inbox)',
        },
      ),
    ),
    content: Nullable(
      Type.Record(Type.String(), Type.Unknown(), { description: 'exactly what the delivery would carry' }),
    ),
    template: Nullable(Type.Record(Type.String(), Type.Unknown())),
    error: Nullable(Type.String({ description: 'the render error, when the content could not be rendered' })),
  },
  { $id: 'TestRunDelivery', title: 'Test run delivery' },
);

export const WorkflowTestRunSchema = Type.Object(
  {
    mode: Type.String({ enum: ['draft', 'live'] }),
    workflow: Type.Object({ slug: Type.String(), version_id: Nullable(Type.String()) }),
    recipient: Type.Object({ distinct_id: Type.String() }),
    tenant_id: Type.String(),
    status: Type.String({ enum: [...TRACE_RUN_STATUSES, 'skipped'], description: 'how the run would end' }),
    steps: Type.Array(
      Type.Composite([
        RunStepSchema,
        Type.Object({
          deliveries: Type.Optional(
            Type.Array(ref(TestRunDeliverySchema), { description: 'delivered_messages steps' }),
          ),
        }),
      ]),
    ),
    jobs_not_queued: Type.Integer({ description: 'the queue jobs the walk would have sent (none was)' }),
  },
  { $id: 'WorkflowTestRun', title: 'Workflow test run' },
);
