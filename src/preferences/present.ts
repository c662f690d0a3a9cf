import { categoriesOf } from '../configuration/preference-category-rules.js';
import { PREFERENCE_CHANNELS, type UserPreference } from '../schemas/preferences.js';
import type { RootCategories } from '../schemas/preference-categories.js';
import { categoryPreference, evaluate, isEditable, type CategoryChoice } from './evaluate.js';

/** A category as the live definition holds it. */
export type DefinitionCategory = ReturnType<typeof categoriesOf>[number];

/** Everything stored for a category choice. */
export interface StoredChoice extends CategoryChoice {
  digest_schedule: Record<string, unknown> | null;
  properties: { key: string; value: unknown }[];
}

/** A user's preferences in one tenant: category choices by slug, and the restricted channels. */
export interface PreferenceState {
  choices: Map<string, StoredChoice>;
  restricted: Set<string>;
}

export const findCategory = (roots: RootCategories, slug: string): DefinitionCategory | undefined =>
  categoriesOf(roots).find((category) => category.category === slug);

const asPreference = (allowed: boolean): UserPreference => (allowed ? 'opt_in' : 'opt_out');

/** CategoryPref (compat.md): the definition overlaid with the user's choices; every channel decided by evaluate(). */
export function presentCategory(category: DefinitionCategory, state: PreferenceState) {
  const choice = state.choices.get(category.category);
  const editable = isEditable(category);
  return {
    name: category.name,
    category: category.category,
    description: category.description ?? null,
    original_preference: choice?.preference ?? null,
    preference: categoryPreference(category, choice).preference,
    is_editable: editable,
    channels: PREFERENCE_CHANNELS.map((channel) => ({
      channel,
      preference: asPreference(evaluate(category, choice, channel, state.restricted.has(channel)).allowed),
      is_editable: editable,
    })),
    opt_in_channels: choice?.opt_in_channels ?? [],
    opt_out_channels: choice?.opt_out_channels ?? [],
    digest_schedule: choice?.digest_schedule ?? null,
    properties: choice?.properties ?? [],
  };
}

export const presentChannelPreferences = (state: PreferenceState) =>
  PREFERENCE_CHANNELS.map((channel) => ({ channel, is_restricted: state.restricted.has(channel) }));

/** The full preference: every section of every root category, in definition order. */
export function presentUserPreferences(roots: RootCategories, state: PreferenceState) {
  return {
    sections: roots.flatMap((root) =>
      (root.sections ?? []).map((section) => ({
        name: section.name,
        subcategories: (section.categories ?? []).map((category) => presentCategory(category, state)),
      })),
    ),
    channel_preferences: presentChannelPreferences(state),
  };
}
