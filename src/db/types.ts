import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Timestamps are written as Date or ISO string, read back as Date by both engines. */
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
  root_categories: Json<unknown[]>;
  commit_message: string | null;
  committed_at: Timestamp;
  committed_by: Json<ActorColumn | null> | null;
}

export interface PreferenceCategoryDraftsTable {
  workspace_id: number;
  root_categories: Json<unknown[]>;
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

export interface Database {
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
}

export type Workspace = Selectable<WorkspacesTable>;
export type NewWorkspace = Insertable<WorkspacesTable>;
