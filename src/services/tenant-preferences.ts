import type { Static } from '@sinclair/typebox';
import type { Db, Trx } from '../db/database.js';
import { notFoundErrors } from '../errors.js';
import { badRequest } from '../errors.js';
import { readChannel } from '../domain/preference-updates.js';
import { placedCategories } from '../domain/tenant-preferences.js';
import { findLivePreferenceCategories } from '../repositories/preference-categories.js';
import { findTenantOverlay, upsertTenantCategory } from '../repositories/tenant-preferences.js';
import { lockTenantKey } from '../repositories/tenants.js';
import { DEFAULT_PREFERENCES, type RootCategories } from '../schemas/preference-categories.js';
import type { TenantCategoryBodySchema } from '../schemas/tenant-preferences.js';

/** The live categories and what the tenant overrides (404 for an unknown tenant). */
export async function readTenantPreferences(db: Db, workspaceId: number, tenantId: string) {
  const [overlay, live] = await Promise.all([
    findTenantOverlay(db, workspaceId, tenantId),
    findLivePreferenceCategories(db, workspaceId),
  ]);
  if (!overlay) throw notFoundErrors.preferenceTenant(tenantId);
  return { roots: live.root_categories, overlay };
}

export function findPlacedCategory(roots: RootCategories, slug: string) {
  const placed = placedCategories(roots).find((entry) => entry.category.category === slug);
  if (!placed) throw notFoundErrors.category(slug);
  return placed;
}

type Body = Static<typeof TenantCategoryBodySchema>;

function readChannels(values: string[] | null | undefined, at: string) {
  if (values === undefined || values === null) return values;
  return [...new Set(values.map((value, index) => readChannel(value, `${at}[${index}]`)))];
}

/**
 * Sets a tenant's overrides for one category of the live definition, in the caller's transaction:
 * the tenant is key-share locked (a racing deletion waits), the category checked, the row merged.
 * Three statements. Returns the category, placed in the definition, and the tenant's overlay after.
 */
export async function updateTenantCategory(trx: Trx, workspaceId: number, tenantId: string, slug: string, body: Body) {
  if (typeof body.preference === 'string' && !(DEFAULT_PREFERENCES as readonly string[]).includes(body.preference)) {
    throw badRequest(
      `preference: '${body.preference}' is not a preference; expected ${DEFAULT_PREFERENCES.join(', ')}`,
      {
        preference: `must be one of ${DEFAULT_PREFERENCES.join(', ')}`,
      },
    );
  }
  const change = {
    preference: body.preference,
    visible_to_subscriber: body.visible_to_subscriber,
    mandatory_channels: readChannels(body.mandatory_channels, 'mandatory_channels'),
    opt_in_channels: readChannels(body.opt_in_channels, 'opt_in_channels'),
    blocked_channels: readChannels(body.blocked_channels, 'blocked_channels'),
  };
  if (!(await lockTenantKey(trx, workspaceId, tenantId))) throw notFoundErrors.preferenceTenant(tenantId);
  const placed = findPlacedCategory((await findLivePreferenceCategories(trx, workspaceId)).root_categories, slug);
  const row = await upsertTenantCategory(trx, workspaceId, tenantId, slug, change);
  return { placed, overlay: { blockedChannels: new Set<string>(), categories: new Map([[slug, row]]) } };
}
