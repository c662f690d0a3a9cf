import type { Db } from '../db/database.js';
import { notFound } from '../errors.js';
import type { StoredChoice, PreferenceState } from '../preferences/present.js';
import type { CategoryUpdate, ChannelUpdate } from '../preferences/update-input.js';
import { findLivePreferenceCategories } from '../repositories/preference-categories.js';
import { findTenant, lockTenantKey } from '../repositories/tenants.js';
import { deletePreferences, findPreferenceRows, upsertCategoryPreferences, upsertChannelPreferences } from '../repositories/user-preferences.js';
import { createAndLockUsers, findUserByDistinctId, lockUsers } from '../repositories/users.js';
import type { RootCategories } from '../schemas/preference-categories.js';
import type { UserPreference } from '../schemas/preferences.js';
import { userNotFound } from './user-edits.js';

/**
 * Users' preferences per tenant. Lock order on writes: the tenant (key share, so a racing tenant
 * deletion waits), then the users in distinct_id order (users.ts), then their preference rows.
 * Deleting users or tenants takes the same order, so no two paths deadlock.
 */

export const tenantNotFound = (tenantId: string) => notFound(`tenant '${tenantId}' not found`);
export const categoryNotFound = (slug: string) => notFound(`category '${slug}' not found`);

export interface PreferenceUpdate {
  channels: ChannelUpdate[];
  categories: CategoryUpdate[];
}

/** Starts a write in the caller's transaction: locks the tenant (404 when unknown) and reads the live categories. */
export async function beginPreferenceWrite(trx: Db, workspaceId: number, tenantId: string): Promise<RootCategories> {
  if (!(await lockTenantKey(trx, workspaceId, tenantId))) throw tenantNotFound(tenantId);
  return (await findLivePreferenceCategories(trx, workspaceId)).root_categories;
}

/**
 * Applies one update to every named user (creating unknown users) in a fixed number of statements
 * whatever the number of users and categories. Returns the users' ids by distinct_id.
 */
export async function writePreferences(trx: Db, workspaceId: number, tenantId: string, distinctIds: string[], update: PreferenceUpdate) {
  const users = await createAndLockUsers(trx, workspaceId, distinctIds);
  const userIds = users.map((user) => user.id);
  await upsertChannelPreferences(trx, workspaceId, tenantId, userIds, update.channels);
  await upsertCategoryPreferences(trx, workspaceId, tenantId, userIds, update.categories);
  return new Map(users.map((user) => [user.distinct_id, user.id]));
}

/** Forgets the named users' choices in the tenant; unknown users are skipped. */
export async function resetPreferences(trx: Db, workspaceId: number, tenantId: string, distinctIds: string[], what: { channels: boolean; categories: boolean }) {
  if (!(await lockTenantKey(trx, workspaceId, tenantId))) throw tenantNotFound(tenantId);
  const users = await lockUsers(trx, workspaceId, distinctIds);
  await deletePreferences(
    trx,
    tenantId,
    users.map((user) => user.id),
    what,
  );
}

/** A user's stored preferences in one tenant, ready for evaluate() and the presenters. */
export async function loadPreferenceState(db: Db, userId: number, tenantId: string): Promise<PreferenceState> {
  const rows = await findPreferenceRows(db, userId, tenantId);
  return {
    restricted: new Set(rows.channels.filter((row) => row.is_restricted).map((row) => row.channel)),
    choices: new Map(
      rows.categories.map((row): [string, StoredChoice] => [
        row.category,
        {
          preference: row.preference as UserPreference | null,
          opt_in_channels: row.opt_in_channels,
          opt_out_channels: row.opt_out_channels,
          digest_schedule: row.digest_schedule ?? null,
          properties: row.properties,
        },
      ]),
    ),
  };
}

/** What a read needs: the live categories and the user's preferences in the tenant (404 for an unknown tenant or user). */
export async function readUserPreferences(db: Db, workspaceId: number, tenantId: string, distinctId: string) {
  const [tenant, user, live] = await Promise.all([
    findTenant(db, workspaceId, tenantId),
    findUserByDistinctId(db, workspaceId, distinctId),
    findLivePreferenceCategories(db, workspaceId),
  ]);
  if (!tenant) throw tenantNotFound(tenantId);
  if (!user) throw userNotFound(distinctId);
  return { roots: live.root_categories, state: await loadPreferenceState(db, user.id, tenantId) };
}
