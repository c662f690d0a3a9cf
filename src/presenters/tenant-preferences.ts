import type { Static } from '@sinclair/typebox';
import type { PlacedCategory, TenantOverlay } from '../domain/tenant-preferences.js';
import { isoOrNull } from '../schemas/common.js';
import type { RootCategories } from '../schemas/preference-categories.js';
import type { TenantCategoryPreferenceSchema } from '../schemas/tenant-preferences.js';

export function presentTenantCategory(
  placed: PlacedCategory,
  overlay: TenantOverlay,
): Static<typeof TenantCategoryPreferenceSchema> {
  const { root, section, category } = placed;
  const override = overlay.categories.get(category.category);
  const tags = category.tags ?? null;
  return {
    name: category.name,
    category: category.category,
    description: category.description ?? null,
    tags,
    effective_tags: [...new Set([...(section.tags ?? []), ...(tags ?? [])])].sort(),
    root_category: root.root_category,
    default_preference: category.default_preference,
    default_mandatory_channels: category.default_mandatory_channels ?? null,
    default_opt_in_channels: category.default_opt_in_channels ?? null,
    enabled_for_tenant: true,
    visible_to_subscriber: override?.visible_to_subscriber ?? true,
    preference: override?.preference ?? null,
    mandatory_channels: override?.mandatory_channels ?? null,
    opt_in_channels: override?.opt_in_channels ?? null,
    blocked_channels: override?.blocked_channels ?? null,
    updated_at: override ? isoOrNull(override.updated_at) : null,
  };
}

export function presentTenantPreferences(roots: RootCategories, overlay: TenantOverlay) {
  return {
    root_categories: roots.map((root) => ({
      root_category: root.root_category,
      sections: (root.sections ?? []).map((section) => ({
        name: section.name ?? null,
        description: section.description ?? null,
        tags: section.tags ?? null,
        categories: (section.categories ?? []).map((category) =>
          presentTenantCategory({ root, section, category }, overlay),
        ),
      })),
    })),
  };
}
