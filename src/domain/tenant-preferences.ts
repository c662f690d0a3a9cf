import type { RootCategories } from '../schemas/preference-categories.js';
import type { CategoryRule } from './preference-evaluation.js';

/**
 * A tenant's own defaults for a category (`/v1/tenant/{id}/preference/category/{slug}/`). A null
 * field follows the workspace's preference category definition.
 */
export interface TenantCategoryOverride {
  preference: string | null;
  visible_to_subscriber: boolean | null;
  mandatory_channels: string[] | null;
  opt_in_channels: string[] | null;
  blocked_channels: string[] | null;
  updated_at: Date;
}

/** What a tenant says about preferences: channels it blocks outright, and its category overrides. */
export interface TenantOverlay {
  blockedChannels: Set<string>;
  categories: Map<string, TenantCategoryOverride>;
}

export const emptyTenantOverlay = (): TenantOverlay => ({ blockedChannels: new Set(), categories: new Map() });

/** The category rule in a tenant: the tenant's preference, where it set one, replaces the default. */
export function tenantRule<Rule extends CategoryRule>(rule: Rule, overlay: TenantOverlay | undefined): Rule {
  const preference = overlay?.categories.get(rule.category)?.preference;
  return preference ? { ...rule, default_preference: preference } : rule;
}

/** Whether the tenant blocks the channel: for all its notifications (its settings), or for this category. */
export function tenantBlocks(overlay: TenantOverlay | undefined, category: string, channel: string): boolean {
  if (!overlay) return false;
  if (overlay.blockedChannels.has(channel)) return true;
  return overlay.categories.get(category)?.blocked_channels?.includes(channel) ?? false;
}

type Root = RootCategories[number];
type Section = NonNullable<Root['sections']>[number];

/** A subcategory of the preference category definition, with its root and section. */
export interface PlacedCategory {
  root: Root;
  section: Section;
  category: NonNullable<Section['categories']>[number];
}

/** Each subcategory of the definition with its root and section, in definition order. */
export const placedCategories = (roots: RootCategories): PlacedCategory[] =>
  roots.flatMap((root) =>
    (root.sections ?? []).flatMap((section) =>
      (section.categories ?? []).map((category) => ({ root, section, category })),
    ),
  );
