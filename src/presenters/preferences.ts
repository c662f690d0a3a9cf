import type { DefinitionCategory } from '../domain/preference-category-rules.js';
import { PREFERENCE_CHANNELS, type UserPreference } from '../schemas/preferences.js';
import type { RootCategories } from '../schemas/preference-categories.js';
import {
  categoryPreference,
  evaluateInTenant,
  isEditable,
  type PreferenceState,
} from '../domain/preference-evaluation.js';
import { tenantRule } from '../domain/tenant-preferences.js';

const asPreference = (allowed: boolean): UserPreference => (allowed ? 'opt_in' : 'opt_out');

/** CategoryPref (docs/spec/compat.md): the definition overlaid with the user's choices; every channel decided by evaluate(). */
export function presentCategory(category: DefinitionCategory, state: PreferenceState) {
  const choice = state.choices.get(category.category);
  const rule = tenantRule(category, state.tenant);
  const editable = isEditable(rule);
  return {
    name: category.name,
    category: category.category,
    description: category.description ?? null,
    original_preference: choice?.preference ?? null,
    preference: categoryPreference(rule, choice).preference,
    is_editable: editable,
    channels: PREFERENCE_CHANNELS.map((channel) => ({
      channel,
      preference: asPreference(evaluateInTenant(category, state, channel).allowed),
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

type PresentedCategory = ReturnType<typeof presentCategory>;

/**
 * The browser's `show_opt_out_channels=false` (the hosted platform's default on its v1 reads): an
 * opted-out category lists no channels, so a preference centre shows only its switch.
 */
const withoutOptOutChannels = (category: PresentedCategory): PresentedCategory =>
  category.preference === 'opt_out' ? { ...category, channels: [] } : category;

export function presentCategoryFor(
  category: DefinitionCategory,
  state: PreferenceState,
  showOptOutChannels: boolean,
): PresentedCategory {
  const presented = presentCategory(category, state);
  return showOptOutChannels ? presented : withoutOptOutChannels(presented);
}

export function presentUserPreferencesFor(
  roots: RootCategories,
  state: PreferenceState,
  showOptOutChannels: boolean,
): ReturnType<typeof presentUserPreferences> {
  const full = presentUserPreferences(roots, state);
  if (showOptOutChannels) return full;
  return {
    ...full,
    sections: full.sections.map((section) => ({
      ...section,
      subcategories: section.subcategories.map(withoutOptOutChannels),
    })),
  };
}
