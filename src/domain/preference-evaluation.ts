import { tenantBlocks, tenantRule, type TenantOverlay } from './tenant-preferences.js';
import type { PREFERENCE_REASONS, UserPreference } from '../schemas/preferences.js';
import { ROOT_CATEGORIES, type RootCategories } from '../schemas/preference-categories.js';
import { findCategory } from './preference-category-rules.js';

/**
 * The one rule deciding whether a notification of a category may reach a user on a channel.
 * Everything that shows or applies preferences (the preference reads, the evaluate endpoint,
 * delivery) asks this function. Precedence, first match wins:
 *
 * 0. a channel the tenant blocks (all its notifications, or this category's): denied;
 * 1. a root category (system, transactional, promotional) carries no user preference: allowed;
 * 2. a category whose default is cant_unsubscribe: allowed, whatever the user chose or restricted;
 * 3. a channel the user restricted (for the tenant): denied;
 * 4. the category preference (the user's choice, else the category default):
 *    - opted in: allowed, unless the channel is in the user's opt_out_channels;
 *    - opted out: denied, unless the channel is in the user's opt_in_channels.
 *
 * The rule passed in is the category as the tenant sees it: a tenant's own default preference for
 * the category replaces the workspace's (domain/tenant-preferences.ts, tenantRule).
 */

export type Reason = (typeof PREFERENCE_REASONS)[number];

/** What the live preference category definition says about a category. */
export interface CategoryRule {
  category: string;
  default_preference: string;
}

/** A user's recorded choice for a category in one tenant; a null preference follows the default. */
export interface CategoryChoice {
  preference: UserPreference | null;
  opt_in_channels: string[];
  opt_out_channels: string[];
}

export interface Decision {
  allowed: boolean;
  reason: Reason;
  message: string;
}

export const ROOT_CATEGORY = 'root' as const;

export const isEditable = (rule: CategoryRule) => rule.default_preference !== 'cant_unsubscribe';

/**
 * The category-level preference in effect and where it comes from. A definition only commits with
 * opt_in, opt_out or cant_unsubscribe defaults; anything else would count as opted out (fail closed).
 */
export function categoryPreference(
  rule: CategoryRule,
  choice: CategoryChoice | undefined,
): { preference: UserPreference; source: 'locked' | 'user' | 'default' } {
  if (!isEditable(rule)) return { preference: 'opt_in', source: 'locked' };
  if (choice?.preference) return { preference: choice.preference, source: 'user' };
  return { preference: rule.default_preference === 'opt_in' ? 'opt_in' : 'opt_out', source: 'default' };
}

export function evaluate(
  rule: CategoryRule | typeof ROOT_CATEGORY,
  choice: CategoryChoice | undefined,
  channel: string,
  restricted: boolean,
  name = '',
  tenantBlocked = false,
): Decision {
  const decide = (allowed: boolean, reason: Reason, message: string): Decision => ({ allowed, reason, message });
  if (tenantBlocked)
    return decide(
      false,
      'tenant_channel_blocked',
      `the tenant blocks ${channel} for this category: nothing is sent on it`,
    );
  if (rule === ROOT_CATEGORY)
    return decide(true, 'root_category', `'${name}' is a root category: users have no preference for it`);
  const label = `'${rule.category}'`;
  const { preference, source } = categoryPreference(rule, choice);
  if (source === 'locked')
    return decide(true, 'cant_unsubscribe', `${label} cannot be unsubscribed: it is sent whatever the user chose`);
  if (restricted)
    return decide(
      false,
      'channel_restricted',
      `the user restricted ${channel}: only categories that cannot be unsubscribed use it`,
    );
  const by = source === 'user' ? 'by the user' : 'by default';
  if (preference === 'opt_in') {
    if (choice?.opt_out_channels.includes(channel))
      return decide(
        false,
        'category_channel_opt_out',
        `the user opted out of ${channel} for ${label} (the category is opted in ${by})`,
      );
    return source === 'user'
      ? decide(true, 'user_opt_in', `the user opted in to ${label}`)
      : decide(true, 'default_opt_in', `${label} is opted in by default and the user made no choice`);
  }
  if (choice?.opt_in_channels.includes(channel))
    return decide(
      true,
      'category_channel_opt_in',
      `the user opted in to ${channel} for ${label} (the category is opted out ${by})`,
    );
  return source === 'user'
    ? decide(false, 'user_opt_out', `the user opted out of ${label}`)
    : decide(false, 'default_opt_out', `${label} is opted out by default and the user made no choice`);
}

/** Everything stored for a category choice. */
export interface StoredChoice extends CategoryChoice {
  digest_schedule: Record<string, unknown> | null;
  properties: { key: string; value: unknown }[];
}

/** A user's preferences in one tenant: category choices by slug, and the restricted channels. */
export interface PreferenceState {
  choices: Map<string, StoredChoice>;
  restricted: Set<string>;
  /** What the tenant says (its blocked channels and category overrides); absent: nothing. */
  tenant?: TenantOverlay;
}

/** evaluate() for a category as the user's tenant sees it: the one call every reader makes. */
export const evaluateInTenant = <Rule extends CategoryRule>(category: Rule, state: PreferenceState, channel: string) =>
  evaluate(
    tenantRule(category, state.tenant),
    state.choices.get(category.category),
    channel,
    state.restricted.has(channel),
    '',
    tenantBlocks(state.tenant, category.category, channel),
  );

/**
 * The preference decision for a category slug on a channel, as `GET …/preference/evaluate/` answers it
 * and as delivery applies it (src/engine/nodes/delivery.ts): one function, so the two never disagree.
 * Undefined for a slug the live definition does not hold.
 */
export function decidePreference(
  roots: RootCategories,
  state: PreferenceState,
  slug: string,
  channel: string,
): Decision | undefined {
  if ((ROOT_CATEGORIES as readonly string[]).includes(slug))
    return evaluate(
      ROOT_CATEGORY,
      undefined,
      channel,
      state.restricted.has(channel),
      slug,
      tenantBlocks(state.tenant, slug, channel),
    );
  const category = findCategory(roots, slug);
  if (!category) return undefined;
  return evaluateInTenant(category, state, channel);
}
