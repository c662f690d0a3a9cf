import type { ColumnType, Generated, Selectable } from 'kysely';
import type { EngineTables } from './engine-types.js';
import type { WebhookTables } from './webhook-types.js';
import type { VendorApprovalEntry } from '../domain/template-approvals.js';
import type { RootCategories } from '../schemas/preference-categories.js';

/** Timestamps are written as Date or ISO string, read back as Date by both databases. */
export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
/** jsonb: objects in, objects out (both drivers parse it). */
export type Json<T = unknown> = ColumnType<T, string | T, string | T>;
/** jsonb with a database default: optional on insert. */
export type JsonWithDefault<T = unknown> = ColumnType<T, string | T | undefined, string | T>;

export interface ActorColumn {
  name: string;
  email: string;
}

export interface WorkspacesTable {
  id: Generated<number>;
  slug: string;
  name: string;
  description: string | null;
  mode: Generated<string>;
  created_at: Timestamp;
}

export interface ServiceTokensTable {
  id: string;
  token_hash: string;
  actor_name: string | null;
  actor_email: string | null;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: number;
  name: string;
  description: string | null;
  key_hash: string;
  masked_key: string;
  created_at: Timestamp;
  created_by: Json<ActorColumn | null> | null;
  deleted_at: NullableTimestamp;
  deleted_by: Json<ActorColumn | null> | null;
}

export interface WorkspaceKeysTable {
  id: string;
  workspace_id: number;
  name: string;
  key: string;
  secret_ciphertext: string;
  is_default: boolean;
  is_active: Generated<boolean>;
  is_deleted: Generated<boolean>;
  allowed_domains: Generated<string[]>;
  created_at: Timestamp;
  created_by: Json<ActorColumn | null> | null;
  rotated_at: NullableTimestamp;
  rotated_by: Json<ActorColumn | null> | null;
  deleted_at: NullableTimestamp;
  deleted_by: Json<ActorColumn | null> | null;
}

export interface TenantsTable {
  workspace_id: number;
  tenant_id: string;
  tenant_name: string;
  /** Branding and settings fields of the tenant (logo, colours, timezone, blocked_channels, social_links). */
  settings: JsonWithDefault<Record<string, unknown>>;
  properties: JsonWithDefault<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: Generated<number>;
  workspace_id: number;
  distinct_id: string;
  properties: JsonWithDefault<Record<string, unknown>>;
  /** Channel entries keyed by channel name (`$email`, `$sms`, …), each an array of entries. */
  channels: JsonWithDefault<Record<string, unknown[]>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface EventsTable {
  id: Generated<number>;
  workspace_id: number;
  distinct_id: string;
  event: string;
  properties: JsonWithDefault<Record<string, unknown>>;
  tenant_id: string | null;
  insert_id: string;
  created_at: Timestamp;
  received_at: Timestamp;
}

export interface PreferenceCategoryVersionsTable {
  workspace_id: number;
  version_no: number;
  root_categories: Json<RootCategories>;
  commit_message: string | null;
  committed_at: Timestamp;
  committed_by: Json<ActorColumn | null> | null;
}

export interface PreferenceCategoryDraftsTable {
  workspace_id: number;
  root_categories: Json<RootCategories>;
  updated_at: Timestamp;
  updated_by: Json<ActorColumn | null> | null;
}

/** The workflow row is its draft; `live_version_no` points at the committed version that is live. */
export interface WorkflowsTable {
  id: Generated<number>;
  workspace_id: number;
  slug: string;
  is_enabled: Generated<boolean>;
  name: string;
  description: string | null;
  category: string;
  trigger_type: string;
  trigger_events: JsonWithDefault<string[]>;
  tags: JsonWithDefault<string[]>;
  tree: Json<unknown>;
  live_version_no: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  updated_by: Json<ActorColumn | null> | null;
  last_executed_at: NullableTimestamp;
  /** The payload schema a trigger's data must satisfy: `{schema, version_no}` (null: its live version), or none. */
  payload_schema: ColumnType<PayloadSchemaLink | null, string | null | undefined, string | null>;
}

export interface PayloadSchemaLink {
  schema: string;
  version_no: number | null;
}

export interface WorkflowVersionsTable {
  workflow_id: number;
  version_no: number;
  name: string;
  description: string | null;
  category: string;
  trigger_type: string;
  trigger_events: Json<string[]>;
  tags: Json<string[]>;
  tree: Json<unknown>;
  payload_schema: ColumnType<PayloadSchemaLink | null, string | null | undefined, string | null>;
  commit_message: string | null;
  committed_at: Timestamp;
  committed_by: Json<ActorColumn | null> | null;
}

/** `draft_content` null: marked for deletion; `live_content` null: never committed. */
export interface TranslationFilesTable {
  workspace_id: number;
  filename: string;
  locale: string;
  namespace: string | null;
  draft_content: Json<Record<string, unknown>> | null;
  draft_updated_at: Timestamp;
  draft_updated_by: Json<ActorColumn | null> | null;
  live_content: Json<Record<string, unknown>> | null;
  live_action: string | null;
  live_updated_at: NullableTimestamp;
}

export interface TranslationVersionsTable {
  workspace_id: number;
  version_no: number;
  /** `[{filename, action, content}]`: what the commit changed. */
  changes: Json<unknown[]>;
  commit_message: string | null;
  committed_at: Timestamp;
  committed_by: Json<ActorColumn | null> | null;
}

export interface ObjectsTable {
  id: Generated<number>;
  workspace_id: number;
  object_type: string;
  object_id: string;
  properties: JsonWithDefault<Record<string, unknown>>;
  channels: JsonWithDefault<Record<string, unknown[]>>;
  /** Maintained by triggers on subscriptions, in the same transaction. */
  subscriptions_count: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A user (user_id) or a child object (child_object_id) subscribed to a parent object (object_id). */
export interface SubscriptionsTable {
  id: Generated<number>;
  object_id: number;
  user_id: number | null;
  child_object_id: number | null;
  properties: JsonWithDefault<Record<string, unknown>>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A channel a user turned off (is_restricted) in one tenant. */
export interface UserChannelPreferencesTable {
  user_id: number;
  workspace_id: number;
  tenant_id: string;
  channel: string;
  is_restricted: boolean;
  updated_at: Timestamp;
}

/** A user's choice for one preference category in one tenant; a null preference follows the category default. */
export interface UserCategoryPreferencesTable {
  user_id: number;
  workspace_id: number;
  tenant_id: string;
  category: string;
  preference: string | null;
  opt_in_channels: JsonWithDefault<string[]>;
  opt_out_channels: JsonWithDefault<string[]>;
  digest_schedule: Json<Record<string, unknown> | null> | null;
  properties: JsonWithDefault<{ key: string; value: unknown }[]>;
  updated_at: Timestamp;
}

/** Which workspace a segment backend may see (migration 2026-11-26T10); only Herald writes it. */
export interface SegmentScopesTable {
  backend_pid: number;
  workspace_id: number;
}

/** The template row is its draft metadata (docs/channels.md). */
export interface TemplatesTable {
  id: Generated<number>;
  workspace_id: number;
  slug: string;
  name: string;
  description: string | null;
  tags: JsonWithDefault<string[]>;
  enabled_channels: JsonWithDefault<string[]>;
  mock_data: Json<Record<string, unknown> | null> | null;
  live_version_no: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  updated_by: Json<ActorColumn | null> | null;
  last_triggered_at: NullableTimestamp;
}

export interface TemplateVariantsTable {
  template_id: number;
  channel: string;
  variant_id: string;
  locale: string;
  tenant_id: string | null;
  conditions: JsonWithDefault<unknown[]>;
  content: Json<Record<string, unknown>>;
  seq_no: Generated<number>;
  needs_vendor_approval: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One committed variant inside a version's `variants` array. */
export interface CommittedVariant {
  channel: string;
  variant_id: string;
  locale: string;
  tenant_id: string | null;
  conditions: unknown[];
  content: Record<string, unknown>;
  seq_no: number;
  needs_vendor_approval: boolean;
  created_at: string;
  updated_at: string;
}

export interface TemplateVersionsTable {
  template_id: number;
  version_no: number;
  name: string;
  description: string | null;
  tags: Json<string[]>;
  enabled_channels: Json<string[]>;
  variants: Json<CommittedVariant[]>;
  mock_data: Json<Record<string, unknown> | null> | null;
  commit_message: string | null;
  committed_at: Timestamp;
  committed_by: Json<ActorColumn | null> | null;
}

/** Vendor approval of a committed variant that needs it; no row: awaiting approval (docs/channels.md). */
export interface TemplateVariantApprovalsTable {
  template_id: number;
  version_no: number;
  channel: string;
  variant_id: string;
  status: 'pending' | 'sent_for_approval' | 'approved' | 'rejected' | 'discarded';
  vendor_approvals: JsonWithDefault<VendorApprovalEntry[]>;
  discard_comment: string | null;
  approval_at: NullableTimestamp;
  updated_at: Generated<Date>;
}

/** In-app inbox public keys: handed to browsers, so not secret. */
export interface WsPublicKeysTable {
  id: string;
  workspace_id: number;
  api_key: string;
  name: string;
  description: string | null;
  allowed_domains: Json<string[] | null> | null;
  is_secure_mode_enabled: Generated<boolean>;
  is_default: Generated<boolean>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  created_by: Json<ActorColumn | null> | null;
  rotated_at: NullableTimestamp;
  rotated_by: Json<ActorColumn | null> | null;
  updated_at: Timestamp;
  updated_by: Json<ActorColumn | null> | null;
}

/** Signing keys for inbox user tokens: only the public half is stored. */
export interface WsSigningKeysTable {
  id: string;
  uid: string;
  workspace_id: number;
  status: 'active' | 'rolled' | 'deleted';
  public_key_pem: string;
  created_at: Timestamp;
  created_by: Json<ActorColumn | null> | null;
  rolled_at: NullableTimestamp;
  rolled_by: Json<ActorColumn | null> | null;
  deleted_at: NullableTimestamp;
  deleted_by: Json<ActorColumn | null> | null;
}

export interface SubscriberListsTable {
  id: Generated<number>;
  workspace_id: number;
  list_id: string;
  list_name: string;
  list_description: string | null;
  source: string | null;
  track_user_entry: Generated<boolean>;
  track_user_exit: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A draft of a list's membership, started by start_sync and made live by finish_sync. */
export interface SubscriberListVersionsTable {
  id: Generated<number>;
  workspace_id: number;
  list_pk: number;
  version_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A user in a live list (version_pk null) or in a draft version of it. */
export interface SubscriberListMembersTable {
  id: Generated<number>;
  workspace_id: number;
  list_pk: number;
  version_pk: number | null;
  user_id: number;
  created_at: Timestamp;
}

/** A tenant's override of a category's defaults; a null field follows the workspace's definition. */
export interface TenantCategoryPreferencesTable {
  workspace_id: number;
  tenant_id: string;
  category: string;
  preference: string | null;
  visible_to_subscriber: boolean | null;
  mandatory_channels: Json<string[] | null> | null;
  opt_in_channels: Json<string[] | null> | null;
  blocked_channels: Json<string[] | null> | null;
  updated_at: Timestamp;
}

/** An object's channel restriction in one tenant (as UserChannelPreferencesTable, for objects). */
export interface ObjectChannelPreferencesTable extends Omit<UserChannelPreferencesTable, 'user_id'> {
  object_id: number;
}

/** An object's choice for one category in one tenant (as UserCategoryPreferencesTable, for objects). */
export interface ObjectCategoryPreferencesTable extends Omit<UserCategoryPreferencesTable, 'user_id'> {
  object_id: number;
}

/** A locale's names for the workspace's preference sections and categories: `{sections, categories}`. */
export interface PreferenceCategoryTranslationsTable {
  workspace_id: number;
  locale: string;
  content: Json<Record<string, unknown>>;
  updated_at: Timestamp;
  updated_by: Json<ActorColumn | null> | null;
}

/** A payload schema: the row is its draft; `live_version_no` points at the live committed version. */
export interface PayloadSchemasTable {
  id: Generated<number>;
  workspace_id: number;
  slug: string;
  name: string;
  json_schema: Json<Record<string, unknown>>;
  hash: string;
  live_version_no: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  updated_by: Json<ActorColumn | null> | null;
}

export interface PayloadSchemaVersionsTable {
  schema_id: number;
  version_no: number;
  name: string;
  json_schema: Json<Record<string, unknown>>;
  hash: string;
  commit_message: string | null;
  committed_at: Timestamp;
  committed_by: Json<ActorColumn | null> | null;
}

/** An event the workspace declares; `schema_id` links a payload schema (a fixed version, or the live one when null). */
export interface RegisteredEventsTable {
  workspace_id: number;
  name: string;
  description: string | null;
  schema_id: number | null;
  schema_version_no: number | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The older inbox clients' secret (docs/clients.md): one per workspace, sealed with the secret box. */
export interface InboxSecretsTable {
  workspace_id: number;
  secret_ciphertext: string;
  created_at: Timestamp;
}

export interface Database extends EngineTables, WebhookTables {
  inbox_secrets: InboxSecretsTable;
  workspaces: WorkspacesTable;
  service_tokens: ServiceTokensTable;
  api_keys: ApiKeysTable;
  workspace_keys: WorkspaceKeysTable;
  tenants: TenantsTable;
  users: UsersTable;
  events: EventsTable;
  preference_category_versions: PreferenceCategoryVersionsTable;
  preference_category_drafts: PreferenceCategoryDraftsTable;
  workflows: WorkflowsTable;
  workflow_versions: WorkflowVersionsTable;
  translation_files: TranslationFilesTable;
  translation_versions: TranslationVersionsTable;
  objects: ObjectsTable;
  subscriptions: SubscriptionsTable;
  user_channel_preferences: UserChannelPreferencesTable;
  user_category_preferences: UserCategoryPreferencesTable;
  segment_scopes: SegmentScopesTable;
  templates: TemplatesTable;
  template_variants: TemplateVariantsTable;
  template_versions: TemplateVersionsTable;
  template_variant_approvals: TemplateVariantApprovalsTable;
  ws_public_keys: WsPublicKeysTable;
  ws_signing_keys: WsSigningKeysTable;
  subscriber_lists: SubscriberListsTable;
  subscriber_list_versions: SubscriberListVersionsTable;
  subscriber_list_members: SubscriberListMembersTable;
  tenant_category_preferences: TenantCategoryPreferencesTable;
  object_channel_preferences: ObjectChannelPreferencesTable;
  object_category_preferences: ObjectCategoryPreferencesTable;
  preference_category_translations: PreferenceCategoryTranslationsTable;
  payload_schemas: PayloadSchemasTable;
  payload_schema_versions: PayloadSchemaVersionsTable;
  registered_events: RegisteredEventsTable;
}

export type Workspace = Selectable<WorkspacesTable>;
