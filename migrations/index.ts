import type { Migration } from 'kysely';
import * as foundation from './2026-11-25T00-foundation.js';
import * as workspaceKeyStates from './2026-11-25T10-workspace-key-states.js';
import * as usersListIndex from './2026-11-25T20-users-list-index.js';
import * as objectsSubscriptions from './2026-11-25T21-objects-subscriptions.js';
import * as configuration from './2026-11-25T30-configuration.js';
import * as segmentViews from './2026-11-25T40-segment-views.js';
import * as userPreferences from './2026-11-25T60-user-preferences.js';

/** Every migration, by name; names sort in the order they apply. */
export const migrations: Record<string, Migration> = {
  '2026-11-25T00-foundation': foundation,
  '2026-11-25T10-workspace-key-states': workspaceKeyStates,
  '2026-11-25T20-users-list-index': usersListIndex,
  '2026-11-25T21-objects-subscriptions': objectsSubscriptions,
  '2026-11-25T30-configuration': configuration,
  '2026-11-25T40-segment-views': segmentViews,
  '2026-11-25T60-user-preferences': userPreferences,
};
