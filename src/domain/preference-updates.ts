import { fieldError } from '../errors.js';
import {
  PREFERENCE_CHANNELS,
  USER_PREFERENCES,
  type CategoryChoiceInput,
  type PreferenceChannel,
  type UserPreference,
} from '../schemas/preferences.js';

/**
 * Reads preference updates from a request, checking what the schema cannot: channel names,
 * preference values and category slugs (against the live definition). Errors name the field and
 * the offending value.
 */

export interface ChannelUpdate {
  channel: PreferenceChannel;
  is_restricted: boolean;
}

/** The fields a category update names are set; `named` lists them, the others are kept. */
export interface CategoryUpdate {
  category: string;
  named: (keyof Omit<CategoryChoiceInput, 'category'>)[];
  preference: UserPreference | null;
  opt_in_channels: PreferenceChannel[];
  opt_out_channels: PreferenceChannel[];
  digest_schedule: Record<string, unknown> | null;
  properties: { key: string; value: unknown }[];
}

const isChannel = (value: string): value is PreferenceChannel =>
  (PREFERENCE_CHANNELS as readonly string[]).includes(value);

export function readChannel(value: string, at: string): PreferenceChannel {
  if (!isChannel(value))
    throw fieldError(at, `'${value}' is not a channel; expected one of ${PREFERENCE_CHANNELS.join(', ')}`);
  return value;
}

/** A list of channels, each checked; repeats are dropped. */
const readChannels = (values: string[], at: string) => [
  ...new Set(values.map((value, index) => readChannel(value, `${at}[${index}]`))),
];

export function readChannelPreferences(
  input: { channel: string; is_restricted: boolean }[],
  at: string,
): ChannelUpdate[] {
  const seen = new Set<string>();
  return input.map(({ channel, is_restricted }, index) => {
    const name = readChannel(channel, `${at}[${index}].channel`);
    if (seen.has(name)) throw fieldError(`${at}[${index}].channel`, `'${name}' is named more than once`);
    seen.add(name);
    return { channel: name, is_restricted };
  });
}

/** One category's fields (`at` names where they came from); the slug is checked by the caller. */
export function readCategoryChoice(
  category: string,
  input: Omit<CategoryChoiceInput, 'category'>,
  at: string,
): CategoryUpdate {
  const { preference, opt_in_channels, opt_out_channels, digest_schedule, properties } = input;
  if (preference !== undefined && !(USER_PREFERENCES as readonly string[]).includes(preference)) {
    throw fieldError(`${at}preference`, `'${preference}' is not a preference; expected opt_in or opt_out`);
  }
  const optIn = readChannels(opt_in_channels ?? [], `${at}opt_in_channels`);
  const optOut = readChannels(opt_out_channels ?? [], `${at}opt_out_channels`);
  const both = optIn.find((channel) => optOut.includes(channel));
  if (both) throw fieldError(`${at}opt_in_channels`, `'${both}' is also in opt_out_channels`);
  return {
    category,
    named: (['preference', 'opt_in_channels', 'opt_out_channels', 'digest_schedule', 'properties'] as const).filter(
      (field) => input[field] !== undefined,
    ),
    preference: (preference as UserPreference | undefined) ?? null,
    opt_in_channels: optIn,
    opt_out_channels: optOut,
    digest_schedule: digest_schedule ?? null,
    properties: properties ?? [],
  };
}

/** Category choices of a bulk update: each slug must be a category of the live definition, named once. */
export function readCategoryChoices(
  input: CategoryChoiceInput[],
  liveSlugs: Set<string>,
  at: string,
): CategoryUpdate[] {
  const seen = new Set<string>();
  return input.map(({ category, ...fields }, index) => {
    const where = `${at}[${index}].`;
    if (!liveSlugs.has(category))
      throw fieldError(`${where}category`, `category '${category}' not found in the live preference categories`);
    if (seen.has(category)) throw fieldError(`${where}category`, `'${category}' is named more than once`);
    seen.add(category);
    return readCategoryChoice(category, fields, where);
  });
}
