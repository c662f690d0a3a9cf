import type { Generated } from 'kysely';
import type { RunStep } from '../domain/run-steps.js';
import type { DeliveryAttempt, MessageTemplate } from '../schemas/messages.js';
import type { Recipient } from '../domain/trigger-records.js';
import type { Json, JsonWithDefault, NullableTimestamp, Timestamp } from './types.js';

/** The engine's tables (migrations/2026-11-26T10-engine.ts). */

/** A trigger as accepted: its id is the `message_id` of the 202, and the parent of every run. */
export interface ExecutionsTable {
  id: string;
  workspace_id: number;
  workflow_id: number | null;
  workflow_slug: string;
  version_no: number;
  category: string;
  tree: Json<unknown> | null;
  data: JsonWithDefault<Record<string, unknown>>;
  actor: Json<Recipient | null> | null;
  tenant_id: string;
  recipients: Json<Recipient[]>;
  idempotency_key: string | null;
  cancellation_key: string | null;
  /** `trigger`, `event`, `legacy`, `invoke` or `broadcast`. */
  source: string;
  /** A broadcast's list (its public list_id): the worker pages through its members. */
  list_id: Generated<string | null>;
  status: Generated<string>;
  created_at: Timestamp;
  cancelled_at: NullableTimestamp;
  /** The run whose invokeworkflow node started this execution. */
  parent_run_id: Generated<string | null>;
  /** How many invocations led here: 0 for a trigger, the invoking execution's depth + 1 otherwise. */
  invoke_depth: Generated<number>;
}

export interface TriggerIdempotencyKeysTable {
  workspace_id: number;
  idempotency_key: string;
  execution_id: string;
  created_at: Timestamp;
}

export interface WorkflowRunsTable {
  id: string;
  execution_id: string;
  workspace_id: number;
  recipient_key: string;
  recipient_type: 'user' | 'object';
  distinct_id: string | null;
  object_type: string | null;
  object_id: string | null;
  inline: Json<Record<string, unknown> | null> | null;
  subscription: Json<Record<string, unknown> | null> | null;
  data: JsonWithDefault<Record<string, unknown>>;
  status: Generated<string>;
  position: JsonWithDefault<number[]>;
  resume_at: NullableTimestamp;
  /** The workflow's ratelimit refused this run: its deliveries are recorded, not sent. */
  rate_limited: Generated<boolean>;
  /** The run's trace: every step's outcome, in order (docs/runs.md). */
  steps: JsonWithDefault<RunStep[]>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MessagesTable {
  id: string;
  seq: Generated<number>;
  workspace_id: number;
  run_id: string;
  execution_id: string;
  node_ref: string;
  workflow_slug: string;
  version_no: number;
  recipient_type: string;
  distinct_id: string | null;
  object_type: string | null;
  object_id: string | null;
  channel: string;
  channel_identity: Json<unknown> | null;
  tenant_id: string;
  category: string;
  idempotency_key: string | null;
  status: string;
  reason: string | null;
  vendor: Json<{ name: string; nickname: string | null } | null> | null;
  template: Json<MessageTemplate | null> | null;
  content: Json<Record<string, unknown> | null> | null;
  error: Json<unknown> | null;
  attempts: JsonWithDefault<DeliveryAttempt[]>;
  is_read: Generated<boolean>;
  is_archived: Generated<boolean>;
  created_at: Timestamp;
  triggered_at: NullableTimestamp;
  sent_at: NullableTimestamp;
  delivered_at: NullableTimestamp;
  seen_at: NullableTimestamp;
  read_at: NullableTimestamp;
  clicked_at: NullableTimestamp;
  dismissed_at: NullableTimestamp;
  archived_at: NullableTimestamp;
  /** The id the vendor gave the message (Twilio's MessageSid), when it gave one: its status callbacks name it. */
  provider_message_id: string | null;
}

export interface VendorsTable {
  id: string;
  workspace_id: number;
  channel: string;
  provider: string;
  nickname: string | null;
  is_default: Generated<boolean>;
  is_active: Generated<boolean>;
  /** Failover order within the channel: lower first, the default vendor before all. */
  priority: Generated<number>;
  /** How long a failing delivery keeps retrying this vendor before the next one is tried. */
  fallback_after_seconds: Generated<number>;
  config: JsonWithDefault<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EngineTables {
  executions: ExecutionsTable;
  trigger_idempotency_keys: TriggerIdempotencyKeysTable;
  workflow_runs: WorkflowRunsTable;
  messages: MessagesTable;
  vendors: VendorsTable;
  workflow_batches: WorkflowBatchesTable;
  workflow_batch_items: WorkflowBatchItemsTable;
  workflow_rate_keys: WorkflowRateKeysTable;
  workflow_rate_slots: WorkflowRateSlotsTable;
  workflow_event_waits: WorkflowEventWaitsTable;
}

/** A batch node's gathering of triggers for one recipient and batch key (migrations/2026-11-26T80-flow.ts). */
export interface WorkflowBatchesTable {
  id: string;
  workspace_id: number;
  workflow_slug: string;
  node_ref: string;
  recipient_key: string;
  kind: Generated<string>;
  batch_key: string;
  status: Generated<string>;
  event_count: Generated<number>;
  waiter_run_id: string | null;
  closes_at: Timestamp;
  created_at: Timestamp;
}

export interface WorkflowBatchItemsTable {
  batch_id: string;
  seq: number;
  run_id: string;
  data: Json<Record<string, unknown>>;
}

export interface WorkflowRateKeysTable {
  workspace_id: number;
  workflow_slug: string;
  recipient_key: string;
  touched_at: Timestamp;
}

export interface WorkflowRateSlotsTable {
  run_id: string;
  workspace_id: number;
  workflow_slug: string;
  recipient_key: string;
  taken_at: Timestamp;
}

export interface WorkflowEventWaitsTable {
  run_id: string;
  node_ref: string;
  workspace_id: number;
  distinct_id: string;
  event_name: string;
  status: Generated<string>;
  timeout_at: Timestamp;
  events: JsonWithDefault<Record<string, unknown>[]>;
  created_at: Timestamp;
}
