import type { Db, Trx } from '../db/database.js';
import { preferenceStateOf, type PreferenceUpdate } from './user-preferences.js';
import { notFoundErrors } from '../errors.js';
import { objectLabel } from '../domain/objects.js';
import { createAndLockObject, findObject, type ObjectRef } from '../repositories/objects.js';
import {
  findOwnerPreferenceRows,
  OBJECT_PREFERENCES,
  upsertOwnerCategoryPreferences,
  upsertOwnerChannelPreferences,
} from '../repositories/owner-preferences.js';
import { findLivePreferenceCategories } from '../repositories/preference-categories.js';
import { findTenantOverlay } from '../repositories/tenant-preferences.js';

/**
 * An object's preferences per tenant: the same model, rule and presenters as a user's (an object
 * that receives notifications, such as a team channel, opts in and out like a person).
 */

/** The object's stored preferences in the tenant with the tenant's overlay (404 for an unknown tenant). */
async function loadObjectState(db: Db, workspaceId: number, objectPk: number, tenantId: string) {
  const [rows, tenant] = await Promise.all([
    findOwnerPreferenceRows(db, OBJECT_PREFERENCES, objectPk, tenantId),
    findTenantOverlay(db, workspaceId, tenantId),
  ]);
  if (!tenant) throw notFoundErrors.preferenceTenant(tenantId);
  return preferenceStateOf(rows, tenant);
}

/** What a read needs: the live categories and the object's preferences (404 for an unknown object or tenant). */
export async function readObjectPreferences(db: Db, workspaceId: number, tenantId: string, ref: ObjectRef) {
  const [object, live] = await Promise.all([
    findObject(db, workspaceId, ref),
    findLivePreferenceCategories(db, workspaceId),
  ]);
  if (!object) throw notFoundErrors.object(objectLabel(ref));
  return { roots: live.root_categories, state: await loadObjectState(db, workspaceId, object.id, tenantId) };
}

/**
 * Applies an update to the object (created when unknown, as users are) in the caller's transaction,
 * after beginPreferenceWrite locked the tenant: lock the object, upsert channels, merge categories,
 * read the state back. A fixed number of statements whatever the update's size.
 */
export async function writeObjectPreferences(
  trx: Trx,
  workspaceId: number,
  tenantId: string,
  ref: ObjectRef,
  update: PreferenceUpdate,
) {
  const object = await createAndLockObject(trx, workspaceId, ref);
  await upsertOwnerChannelPreferences(trx, OBJECT_PREFERENCES, workspaceId, tenantId, object.id, update.channels);
  await upsertOwnerCategoryPreferences(trx, OBJECT_PREFERENCES, workspaceId, tenantId, object.id, update.categories);
  return loadObjectState(trx, workspaceId, object.id, tenantId);
}
