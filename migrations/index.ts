import type { Migration } from 'kysely';
import * as foundation from './2026-11-25T00-foundation.js';
import * as workspaceKeyStates from './2026-11-25T10-workspace-key-states.js';
import * as usersListIndex from './2026-11-25T20-users-list-index.js';
import * as objectsSubscriptions from './2026-11-25T21-objects-subscriptions.js';
import * as configuration from './2026-11-25T30-configuration.js';
import * as segmentViews from './2026-11-25T40-segment-views.js';
import * as userPreferences from './2026-11-25T60-user-preferences.js';
import * as engine from './2026-11-26T10-engine.js';
import * as segmentSandbox from './2026-11-26T10-segment-sandbox.js';
import * as templates from './2026-11-26T10-templates.js';
import * as inboxKeys from './2026-11-26T20-inbox-keys.js';
import * as subscriberLists from './2026-11-26T70-subscriber-lists.js';
import * as tenantPreferences from './2026-11-26T71-tenant-preferences.js';
import * as objectPreferences from './2026-11-26T72-object-preferences.js';
import * as managementRegistry from './2026-11-26T73-management-registry.js';
import * as flow from './2026-11-26T80-flow.js';
import * as invokedWorkflows from './2026-11-26T81-invoked-workflows.js';
import * as broadcasts from './2026-11-26T90-broadcasts.js';
import * as templateApprovals from './2026-11-26T91-template-approvals.js';
import * as runTraces from './2026-11-27T40-run-traces.js';
import * as heraldSettings from './2026-11-27T60-herald-settings.js';
import * as webhookEndpoints from './2026-11-27T70-webhook-endpoints.js';
import { vendorSecrets, type VendorSealer } from './2026-11-28T10-vendor-secrets.js';
import * as vendorFailover from './2026-11-28T11-vendor-failover.js';
import * as providerMessageIds from './2026-11-28T20-provider-message-ids.js';
import * as inboxSecrets from './2026-11-28T30-inbox-secrets.js';
import * as webhookRelayNotify from './2026-11-29T30-webhook-relay-notify.js';

export type { VendorSealer };

/**
 * Every migration, by name; names sort in the order they apply. A migration that seals secrets gets the runner's
 * sealer (none: a database holding such secrets is refused by it).
 */
export const migrationsWith = (sealer?: VendorSealer): Record<string, Migration> => ({
  '2026-11-25T00-foundation': foundation,
  '2026-11-25T10-workspace-key-states': workspaceKeyStates,
  '2026-11-25T20-users-list-index': usersListIndex,
  '2026-11-25T21-objects-subscriptions': objectsSubscriptions,
  '2026-11-25T30-configuration': configuration,
  '2026-11-25T40-segment-views': segmentViews,
  '2026-11-25T60-user-preferences': userPreferences,
  '2026-11-26T10-engine': engine,
  '2026-11-26T10-segment-sandbox': segmentSandbox,
  '2026-11-26T10-templates': templates,
  '2026-11-26T20-inbox-keys': inboxKeys,
  '2026-11-26T70-subscriber-lists': subscriberLists,
  '2026-11-26T71-tenant-preferences': tenantPreferences,
  '2026-11-26T72-object-preferences': objectPreferences,
  '2026-11-26T73-management-registry': managementRegistry,
  '2026-11-26T80-flow': flow,
  '2026-11-26T81-invoked-workflows': invokedWorkflows,
  '2026-11-26T90-broadcasts': broadcasts,
  '2026-11-26T91-template-approvals': templateApprovals,
  '2026-11-27T40-run-traces': runTraces,
  '2026-11-27T60-herald-settings': heraldSettings,
  '2026-11-27T70-webhook-endpoints': webhookEndpoints,
  '2026-11-28T10-vendor-secrets': vendorSecrets(sealer),
  '2026-11-28T11-vendor-failover': vendorFailover,
  '2026-11-28T20-provider-message-ids': providerMessageIds,
  '2026-11-28T30-inbox-secrets': inboxSecrets,
  '2026-11-29T30-webhook-relay-notify': webhookRelayNotify,
});

/** The migrations by name (what `herald migrate --status` and the doctor list). */
export const migrations = migrationsWith();
