/** The wire shapes the console reads: docs/spec/product.md §1–§3 and the management OpenAPI document. */

export interface OffsetList<T> {
  meta: { count: number; limit: number; offset: number };
  results: T[];
}
export interface CursorList<T> {
  meta: {
    count: number;
    limit: number;
    has_prev: boolean;
    before: string | null;
    has_next: boolean;
    after: string | null;
  };
  results: T[];
}
export interface Actor {
  name?: string | null;
  email?: string | null;
}
export interface Workspace {
  slug: string;
  name: string;
  description: string | null;
  mode: string;
  created_at: string;
}
export interface ValidationResult {
  is_valid: boolean;
  errors: string[];
}
export interface Workflow {
  slug: string;
  name: string;
  description: string | null;
  category: string;
  tags: string[];
  trigger_type: string;
  trigger_events: string[];
  tree: unknown;
  is_enabled: boolean;
  status: 'draft' | 'active' | 'inactive';
  version_no: number;
  commit_message: string | null;
  created_at: string;
  updated_at: string;
  updated_by: Actor;
  active_at: string | null;
  last_executed_at: string | null;
  validation_result: ValidationResult;
}
export interface TemplateChannel {
  channel: string;
  is_active: boolean;
  variants_count: number;
}
export interface Template {
  slug: string;
  name: string;
  description: string | null;
  tags: string[];
  enabled_channels: string[];
  status: 'draft' | 'active';
  version_no: number | null;
  commit_message: string | null;
  created_at: string;
  updated_at: string;
  active_at: string | null;
  updated_by: Actor;
  channels: TemplateChannel[];
}
export interface Variant {
  channel: string;
  id: string;
  tenant_id: string | null;
  locale: string;
  has_error: boolean;
  content?: Record<string, unknown>;
  errors?: Record<string, string[]>;
}
export interface Vendor {
  id: string;
  channel: string;
  provider: string;
  nickname: string | null;
  is_default: boolean;
  is_active: boolean;
  priority?: number;
  config: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}
export interface VendorTestResult {
  ok: boolean;
  mode: 'check' | 'message';
  [key: string]: unknown;
}
export interface ApiKey {
  id: string;
  name: string;
  masked_api_key: string;
  is_deleted: boolean;
  created_at?: string;
}
export interface CreatedApiKey extends ApiKey {
  api_key: string;
}
export interface WorkspaceKey {
  id: string;
  name: string;
  key: string;
  secret: string;
  is_default: boolean;
  is_active: boolean;
  is_deleted: boolean;
  allowed_domains: string[];
}
export interface Message {
  message_id: string;
  execution_id: string;
  parent_execution_id: string;
  workflow: { slug: string; version_id: string; node_ref: string };
  recipient: { $type: 'user' | 'object'; distinct_id?: string; object_type?: string; id?: string };
  channel: string;
  tenant_id: string;
  category: string;
  status: string;
  reason: string | null;
  vendor: { name: string; nickname: string | null } | null;
  template: { slug: string; version_no: number; variant_id: string } | null;
  content: Record<string, unknown> | null;
  error: unknown;
  attempts: number;
  /** Every delivery attempt, oldest first, as the message records it. */
  delivery_attempts?: Record<string, unknown>[];
  created_at?: string;
  [key: string]: unknown;
}
export interface RunStep {
  node_ref: string;
  node_type: string;
  outcome: string;
  at: string;
  detail?: Record<string, unknown> | null;
}
export interface Run {
  run_id: string;
  recipient: { distinct_id?: string; object_type?: string; id?: string };
  status: string;
  absorbed_into?: string | null;
  steps: RunStep[];
}
export interface Execution {
  execution_id: string;
  workflow: { slug: string; version_id: string };
  status: string;
  created_at: string;
  idempotency_key: string | null;
  tenant_id: string | null;
  actor: unknown;
  recipients_count: number;
  runs?: Run[];
}
export interface Preview {
  channel: string;
  variant_id: string;
  locale: string;
  content: Record<string, unknown>;
}
export interface TestRunStep extends RunStep {
  decision?: unknown;
  vendor?: unknown;
  content?: Record<string, unknown> | null;
  [key: string]: unknown;
}

export interface PreferenceEvaluations {
  tenant_id: string;
  results: { category: string; channel: string; allowed: boolean; reason: string; message: string }[];
}
export interface SubscribedToList {
  list: { list_id: string; list_name: string | null; subscribers_count?: number };
  created_at: string;
}
export interface QueueOverview {
  queues: { name: string; waiting: number; active: number; failed: number; oldest_job_age_seconds: number | null }[];
  failed_jobs: {
    id: string;
    queue: string;
    error: string | null;
    retry_count: number;
    created_at: string;
    failed_at: string | null;
  }[];
}
export interface TestRunDelivery {
  channel: string;
  channel_identity: unknown;
  decision: { send: boolean; reason: string | null };
  vendor: { id: string; provider: string; nickname: string | null } | null;
  content: Record<string, unknown> | null;
  error: string | null;
}
