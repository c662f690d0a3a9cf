import { ApiKeySchema, CreatedApiKeySchema } from './api-keys.js';
import { ActorSchema, FullErrorSchema, ListMetaSchema, ShortErrorSchema } from './common.js';
import { ChannelEntrySchema, UserSchema } from './users.js';
import { PreferenceCategoriesSchema } from './preference-categories.js';
import { TranslationContentSchema, TranslationFileSchema } from './translations.js';
import { ValidationResultSchema } from './versioning.js';
import { WorkflowSchema } from './workflows.js';
import { CursorMetaSchema } from './cursor.js';
import { EditOperationSchema } from './entity-operations.js';
import { TenantSchema } from './tenants.js';
import { ObjectSchema } from './objects.js';
import { SubscribedToSchema, SubscriptionSchema } from './subscriptions.js';
import { WorkspaceKeySchema } from './workspace-keys.js';
import { WorkspaceSchema } from './workspaces.js';
import { CategoryPreferenceSchema, UserPreferencesSchema } from './preferences.js';

/** Every schema with an `$id`: registered once on the app, referenced by `$ref`, named in OpenAPI components. */
export const sharedSchemas = [
  FullErrorSchema,
  ShortErrorSchema,
  ActorSchema,
  ListMetaSchema,
  WorkspaceSchema,
  WorkspaceKeySchema,
  ChannelEntrySchema,
  UserSchema,
  ApiKeySchema,
  CreatedApiKeySchema,
  ValidationResultSchema,
  PreferenceCategoriesSchema,
  WorkflowSchema,
  TranslationFileSchema,
  TranslationContentSchema,
  CursorMetaSchema,
  EditOperationSchema,
  TenantSchema,
  ObjectSchema,
  SubscriptionSchema,
  SubscribedToSchema,
  CategoryPreferenceSchema,
  UserPreferencesSchema,
];
