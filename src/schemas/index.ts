import { ApiKeySchema, CreatedApiKeySchema } from './api-keys.js';
import { ActorSchema, FullErrorSchema, ListMetaSchema, ShortErrorSchema } from './common.js';
import { ChannelEntrySchema, UserSchema } from './users.js';
import { PreferenceCategoriesSchema } from './preference-categories.js';
import { TranslationContentSchema, TranslationFileSchema, TranslationListEntrySchema } from './translations.js';
import { ValidationResultSchema } from './versioning.js';
import { WorkflowSchema } from './workflows.js';
import {
  BaseTemplateChannelSchema,
  BaseTemplateSchema,
  MockDataSchema,
  PreCommitCheckSchema,
  TemplatePreviewSchema,
  TemplateSchema,
  TemplateVariantSchema,
  VariantOrderSchema,
} from './templates.js';
import { CreatedSigningKeySchema, PublicKeySchema, SigningKeySchema } from './inbox-keys.js';
import { CursorMetaSchema } from './cursor.js';
import { EditOperationSchema } from './entity-operations.js';
import { TenantSchema } from './tenants.js';
import { BrandSchema } from './brands.js';
import { LinkedPayloadSchemaSchema, PayloadSchemaSchema } from './payload-schemas.js';
import { RegisteredEventSchema } from './registered-events.js';
import { TenantCategoryPreferenceSchema, TenantPreferencesSchema } from './tenant-preferences.js';
import { ObjectSchema } from './objects.js';
import { SubscribedToSchema, SubscriptionSchema } from './subscriptions.js';
import { WorkspaceKeySchema } from './workspace-keys.js';
import { WorkspaceSchema } from './workspaces.js';
import { CategoryPreferenceSchema, UserPreferencesSchema } from './preferences.js';
import {
  ListSubscriberSchema,
  SubscribedToListSchema,
  SubscriberListSchema,
  SubscriberListVersionSchema,
} from './subscriber-lists.js';
import { FailErrorSchema } from './triggers.js';
import { MessageSchema } from './messages.js';
import {
  RunStepSchema,
  WorkflowExecutionSchema,
  WorkflowExecutionTraceSchema,
  WorkflowRunTraceSchema,
  TestRunDeliverySchema,
  WorkflowTestRunSchema,
} from './workflow-runs.js';
import { NotificationSchema } from './feed.js';
import { QueueOverviewSchema } from './queue.js';
import { VendorSchema, VendorTestResultSchema } from './vendors.js';
import { CreatedWebhookEndpointSchema, WebhookEndpointSchema } from './webhook-endpoints.js';

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
  TranslationListEntrySchema,
  CursorMetaSchema,
  EditOperationSchema,
  TenantSchema,
  BrandSchema,
  ObjectSchema,
  SubscriptionSchema,
  SubscribedToSchema,
  CategoryPreferenceSchema,
  UserPreferencesSchema,
  SubscriberListSchema,
  SubscriberListVersionSchema,
  ListSubscriberSchema,
  SubscribedToListSchema,
  TenantCategoryPreferenceSchema,
  TenantPreferencesSchema,
  PayloadSchemaSchema,
  LinkedPayloadSchemaSchema,
  RegisteredEventSchema,
  FailErrorSchema,
  MessageSchema,
  RunStepSchema,
  WorkflowExecutionSchema,
  WorkflowRunTraceSchema,
  WorkflowExecutionTraceSchema,
  TestRunDeliverySchema,
  WorkflowTestRunSchema,
  QueueOverviewSchema,
  NotificationSchema,
  VendorSchema,
  VendorTestResultSchema,
  WebhookEndpointSchema,
  CreatedWebhookEndpointSchema,
  TemplateSchema,
  TemplateVariantSchema,
  PreCommitCheckSchema,
  VariantOrderSchema,
  MockDataSchema,
  TemplatePreviewSchema,
  BaseTemplateChannelSchema,
  BaseTemplateSchema,
  PublicKeySchema,
  SigningKeySchema,
  CreatedSigningKeySchema,
];
