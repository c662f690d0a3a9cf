import type { Db, Trx } from '../db/database.js';
import { DELIVERY_CHANNELS } from '../schemas/delivery-channels.js';
import { categoriesOf, findCategory } from '../domain/preference-category-rules.js';
import { decidePreference, type PreferenceState, type StoredChoice } from '../domain/preference-evaluation.js';
import {
  readCategoryChoice,
  readCategoryChoices,
  readChannel,
  readChannelPreferences,
  type CategoryUpdate,
  type ChannelUpdate,
} from '../domain/preference-updates.js';
import { badRequest, notFoundErrors } from '../errors.js';
import { findLivePreferenceCategories } from '../repositories/preference-categories.js';
import { findTenant, lockTenantKey } from '../repositories/tenants.js';
import { findTenantOverlayOfUser } from '../repositories/tenant-preferences.js';
import type { TenantOverlay } from '../domain/tenant-preferences.js';
import {
  deletePreferences,
  findPreferenceRows,
  upsertCategoryPreferences,
  upsertChannelPreferences,
} from '../repositories/user-preferences.js';
import { createAndLockUsers, findUserByDistinctId, lockUsers } from '../repositories/users.js';
import type { RootCategories } from '../schemas/preference-categories.js';
import type { BulkPreferencesBody, CategoryChoiceInput, UserPreference } from '../schemas/preferences.js';

/**
 * Users' preferences per tenant. Lock order on writes: the tenant (key share, so a racing tenant
 * deletion waits), then the users in distinct_id order (users.ts), then their preference rows.
 * Deleting users or tenants takes the same order, so no two paths deadlock.
 */

export interface PreferenceUpdate {
  channels: ChannelUpdate[];
  categories: CategoryUpdate[];
}

/** Starts a write in the caller's transaction: locks the tenant (404 when unknown) and reads the live categories. */
export async function beginPreferenceWrite(trx: Trx, workspaceId: number, tenantId: string): Promise<RootCategories> {
  if (!(await lockTenantKey(trx, workspaceId, tenantId))) throw notFoundErrors.preferenceTenant(tenantId);
  return (await findLivePreferenceCategories(trx, workspaceId)).root_categories;
}

/**
 * Applies one update to every named user (creating unknown users) in a fixed number of statements
 * whatever the number of users and categories. Returns the users' ids by distinct_id.
 */
export async function writePreferences(
  trx: Trx,
  workspaceId: number,
  tenantId: string,
  distinctIds: string[],
  update: PreferenceUpdate,
) {
  const users = await createAndLockUsers(trx, workspaceId, distinctIds);
  const userIds = users.map((user) => user.id);
  await upsertChannelPreferences(trx, workspaceId, tenantId, userIds, update.channels);
  await upsertCategoryPreferences(trx, workspaceId, tenantId, userIds, update.categories);
  return new Map(users.map((user) => [user.distinct_id, user.id]));
}

/** Stored preference rows (a user's or an object's) and the tenant's overlay, as evaluate() and the presenters take them. */
export function preferenceStateOf(
  rows: Awaited<ReturnType<typeof findPreferenceRows>>,
  tenant: TenantOverlay | undefined,
): PreferenceState {
  return {
    tenant,
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

/** A user's stored preferences in one tenant with the tenant's overlay, ready for evaluate() and the presenters. */
export async function loadPreferenceState(db: Db, userId: number, tenantId: string): Promise<PreferenceState> {
  const [rows, tenant] = await Promise.all([
    findPreferenceRows(db, userId, tenantId),
    findTenantOverlayOfUser(db, userId, tenantId),
  ]);
  return preferenceStateOf(rows, tenant);
}

/** What a read needs: the live categories and the user's preferences in the tenant (404 for an unknown tenant or user). */
export async function readUserPreferences(db: Db, workspaceId: number, tenantId: string, distinctId: string) {
  const [tenant, user, live] = await Promise.all([
    findTenant(db, workspaceId, tenantId),
    findUserByDistinctId(db, workspaceId, distinctId),
    findLivePreferenceCategories(db, workspaceId),
  ]);
  if (!tenant) throw notFoundErrors.preferenceTenant(tenantId);
  if (!user) throw notFoundErrors.user(distinctId);
  return { roots: live.root_categories, state: await loadPreferenceState(db, user.id, tenantId) };
}

/** One category of the live definition with the user's preferences (404 for an unknown category). */
export async function readCategoryPreference(
  db: Db,
  workspaceId: number,
  tenantId: string,
  distinctId: string,
  slug: string,
) {
  const { roots, state } = await readUserPreferences(db, workspaceId, tenantId, distinctId);
  const category = findCategory(roots, slug);
  if (!category) throw notFoundErrors.category(slug);
  return { category, state };
}

/** Sets the fields the body names for one category (an unknown user is created); the category as it now is. */
export async function setCategoryPreference(
  trx: Trx,
  workspaceId: number,
  tenantId: string,
  distinctId: string,
  slug: string,
  input: Omit<CategoryChoiceInput, 'category'>,
) {
  const category = findCategory(await beginPreferenceWrite(trx, workspaceId, tenantId), slug);
  if (!category) throw notFoundErrors.category(slug);
  const update = { channels: [], categories: [readCategoryChoice(slug, input, '')] };
  const users = await writePreferences(trx, workspaceId, tenantId, [distinctId], update);
  return { category, state: await loadPreferenceState(trx, users.get(distinctId)!, tenantId) };
}

/** Restricts or allows the named channels (an unknown user is created); the user's state as it now is. */
export async function setChannelPreferences(
  trx: Trx,
  workspaceId: number,
  tenantId: string,
  distinctId: string,
  input: { channel: string; is_restricted: boolean }[],
) {
  await beginPreferenceWrite(trx, workspaceId, tenantId);
  const update = { channels: readChannelPreferences(input, 'channel_preferences'), categories: [] };
  const users = await writePreferences(trx, workspaceId, tenantId, [distinctId], update);
  return loadPreferenceState(trx, users.get(distinctId)!, tenantId);
}

/** A user's channel restrictions and category choices in one write (what the body does not name is kept). */
export async function setUserPreferences(
  trx: Trx,
  workspaceId: number,
  tenantId: string,
  distinctId: string,
  body: Pick<BulkPreferencesBody, 'channel_preferences' | 'categories'>,
) {
  const roots = await beginPreferenceWrite(trx, workspaceId, tenantId);
  const slugs = new Set(categoriesOf(roots).map((category) => category.category));
  const update = {
    channels: readChannelPreferences(body.channel_preferences ?? [], 'channel_preferences'),
    categories: readCategoryChoices(body.categories ?? [], slugs, 'categories'),
  };
  const users = await writePreferences(trx, workspaceId, tenantId, [distinctId], update);
  return { roots, state: await loadPreferenceState(trx, users.get(distinctId)!, tenantId) };
}

/** Whether a notification of `slug` may reach the user on `channel`, and the rule that decided. */
export async function evaluateUserPreference(
  db: Db,
  workspaceId: number,
  query: { tenant_id: string; category: string; channel: string },
  distinctId: string,
) {
  const { category: slug, tenant_id } = query;
  const channel = readChannel(query.channel, 'channel');
  const { roots, state } = await readUserPreferences(db, workspaceId, tenant_id, distinctId);
  const decision = decidePreference(roots, state, slug, channel);
  if (!decision) throw notFoundErrors.category(slug);
  return decision;
}

/**
 * The evaluation of every category of the live definition on every channel (ours, the console's user
 * page): what evaluateUserPreference answers for each pair, with the rule that decided.
 */
export async function evaluateUserPreferences(db: Db, workspaceId: number, tenantId: string, distinctId: string) {
  const { roots, state } = await readUserPreferences(db, workspaceId, tenantId, distinctId);
  const results = categoriesOf(roots).flatMap((category) =>
    DELIVERY_CHANNELS.map((channel) => ({
      category: category.category,
      channel,
      ...decidePreference(roots, state, category.category, channel)!,
    })),
  );
  return { tenant_id: tenantId, results };
}

/** The same update for 1 to 100 users: each category slug must be one of the live definition. */
export async function updateUsersPreferences(
  trx: Trx,
  workspaceId: number,
  tenantId: string,
  body: BulkPreferencesBody,
) {
  const roots = await beginPreferenceWrite(trx, workspaceId, tenantId);
  const slugs = new Set(categoriesOf(roots).map((category) => category.category));
  const update = {
    channels: readChannelPreferences(body.channel_preferences ?? [], 'channel_preferences'),
    categories: readCategoryChoices(body.categories ?? [], slugs, 'categories'),
  };
  await writePreferences(trx, workspaceId, tenantId, body.distinct_ids, update);
}

/** Forgets the named users' choices in the tenant; unknown users are skipped. */
export async function resetPreferences(
  trx: Trx,
  workspaceId: number,
  tenantId: string,
  distinctIds: string[],
  what: { channels: boolean; categories: boolean },
) {
  if (!what.channels && !what.categories) {
    throw badRequest('nothing to reset: reset_channel_preferences and reset_categories are both false', {
      reset_categories: 'is false',
    });
  }
  if (!(await lockTenantKey(trx, workspaceId, tenantId))) throw notFoundErrors.preferenceTenant(tenantId);
  const users = await lockUsers(trx, workspaceId, distinctIds);
  await deletePreferences(
    trx,
    tenantId,
    users.map((user) => user.id),
    what,
  );
}
