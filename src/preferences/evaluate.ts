import type { PREFERENCE_REASONS, UserPreference } from '../schemas/preferences.js';

/**
 * The one rule deciding whether a notification of a category may reach a user on a channel.
 * Everything that shows or applies preferences (the preference reads, the evaluate endpoint,
 * delivery) asks this function. Precedence, first match wins:
 *
 * 1. a root category (system, transactional, promotional) carries no user preference: allowed;
 * 2. a category whose default is cant_unsubscribe: allowed, whatever the user chose or restricted;
 * 3. a channel the user restricted (for the tenant): denied;
 * 4. the category preference (the user's choice, else the category default):
 *    - opted in: allowed, unless the channel is in the user's opt_out_channels;
 *    - opted out: denied, unless the channel is in the user's opt_in_channels.
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
export function categoryPreference(rule: CategoryRule, choice: CategoryChoice | undefined): { preference: UserPreference; source: 'locked' | 'user' | 'default' } {
  if (!isEditable(rule)) return { preference: 'opt_in', source: 'locked' };
  if (choice?.preference) return { preference: choice.preference, source: 'user' };
  return { preference: rule.default_preference === 'opt_in' ? 'opt_in' : 'opt_out', source: 'default' };
}

export function evaluate(rule: CategoryRule | typeof ROOT_CATEGORY, choice: CategoryChoice | undefined, channel: string, restricted: boolean, name = ''): Decision {
  const decide = (allowed: boolean, reason: Reason, message: string): Decision => ({ allowed, reason, message });
  if (rule === ROOT_CATEGORY) return decide(true, 'root_category', `'${name}' is a root category: users have no preference for it`);
  const label = `'${rule.category}'`;
  const { preference, source } = categoryPreference(rule, choice);
  if (source === 'locked') return decide(true, 'cant_unsubscribe', `${label} cannot be unsubscribed: it is sent whatever the user chose`);
  if (restricted) return decide(false, 'channel_restricted', `the user restricted ${channel}: only categories that cannot be unsubscribed use it`);
  const by = source === 'user' ? 'by the user' : 'by default';
  if (preference === 'opt_in') {
    if (choice?.opt_out_channels.includes(channel)) return decide(false, 'category_channel_opt_out', `the user opted out of ${channel} for ${label} (the category is opted in ${by})`);
    return source === 'user'
      ? decide(true, 'user_opt_in', `the user opted in to ${label}`)
      : decide(true, 'default_opt_in', `${label} is opted in by default and the user made no choice`);
  }
  if (choice?.opt_in_channels.includes(channel)) return decide(true, 'category_channel_opt_in', `the user opted in to ${channel} for ${label} (the category is opted out ${by})`);
  return source === 'user'
    ? decide(false, 'user_opt_out', `the user opted out of ${label}`)
    : decide(false, 'default_opt_out', `${label} is opted out by default and the user made no choice`);
}
