import { isDeepStrictEqual } from 'node:util';
import { badRequest } from '../errors.js';
import { CHANNEL_KEYS, type ChannelEntry, type ChannelKey } from '../schemas/users.js';
import { isObject } from './values.js';

/** A user's or object's channels: entries per channel key (`$email`, …), as stored in the `channels` column. */
export type Channels = Partial<Record<ChannelKey, ChannelEntry[]>>;

export const isChannelKey = (key: string): key is ChannelKey => (CHANNEL_KEYS as readonly string[]).includes(key);

/** Modifier keys that travel beside a channel value in `$append`/`$remove` and in flat upserts. */
export const CHANNEL_MODIFIERS = ['$id_provider', '$bundle_id'] as const;

type Json = Record<string, unknown>;
const isText = (value: unknown, max = 1024): value is string =>
  typeof value === 'string' && value.trim().length > 0 && value.length <= max;

const EMAIL =
  /^[^\s@"(),:;<>[\]\\]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const E164 = /^\+[1-9]\d{6,14}$/;
const URL_LIKE = /^https?:\/\/\S+$/;

const show = (value: unknown) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));

/** Object-valued channels: returns the reason a value is unusable, or undefined when it is fine. */
const objectShapes: Partial<Record<ChannelKey, (value: Json) => string | undefined>> = {
  // A Web Push subscription as browsers produce it.
  $webpush: (v) =>
    isText(v.endpoint, 2048) &&
    URL_LIKE.test(v.endpoint as string) &&
    isObject(v.keys) &&
    isText(v.keys.p256dh) &&
    isText(v.keys.auth)
      ? undefined
      : 'must be a push subscription {endpoint, keys: {p256dh, auth}}',
  // Slack: who to reach (email, user_id or channel_id), with an optional bot token of its own, or an
  // incoming webhook. Without access_token (the SDK's schema allows it, its add_slack_userid sends it),
  // the workspace's Slack vendor delivers with its bot token (docs/channels.md, "Slack").
  $slack: (v) => {
    if (isObject(v.incoming_webhook))
      return isText(v.incoming_webhook.url, 2048) ? undefined : 'incoming_webhook.url must be a URL';
    if (v.access_token !== undefined && !isText(v.access_token)) return 'access_token must be a non-empty string';
    if (v.email !== undefined)
      return typeof v.email === 'string' && EMAIL.test(v.email) ? undefined : 'email must be a valid email address';
    return isText(v.user_id) || isText(v.channel_id) ? undefined : 'must carry one of email, user_id, channel_id';
  },
  // Microsoft Teams: a bot conversation (tenant_id, service_url, conversation_id or user_id), or an incoming webhook.
  $ms_teams: (v) => {
    if (isObject(v.incoming_webhook))
      return isText(v.incoming_webhook.url, 2048) ? undefined : 'incoming_webhook.url must be a URL';
    if (!isText(v.tenant_id) || !isText(v.service_url, 2048))
      return 'must carry tenant_id and service_url (or incoming_webhook.url)';
    return isText(v.conversation_id) || isText(v.user_id) ? undefined : 'must carry conversation_id or user_id';
  },
};

/** id_provider written on entries when the caller names none (ours: the providers the SDKs default to). */
const defaultProviders: Partial<Record<ChannelKey, string>> = {
  $androidpush: 'fcm',
  $iospush: 'apns',
  $webpush: 'vapid',
  $inbox: 'suprsend',
};

/**
 * Checks and normalizes one channel value; `at` names where it came from in the request.
 * Emails are trimmed and lower-cased; phone numbers lose spaces and dashes and must then be E.164.
 */
export function normalizeChannelValue(channel: ChannelKey, value: unknown, at: string): string | Json {
  const invalid = (reason: string) => badRequest(`${at}: ${show(value)} ${reason}`, { [at]: reason });
  if (channel in objectShapes) {
    if (!isObject(value)) throw invalid('must be an object');
    const reason = objectShapes[channel]!(value);
    if (reason) throw invalid(reason);
    return value;
  }
  if (typeof value !== 'string') throw invalid('must be a string');
  if (channel === '$email') {
    const email = value.trim().toLowerCase();
    if (email.length > 254 || !EMAIL.test(email)) throw invalid('is not a valid email address');
    return email;
  }
  if (channel === '$sms' || channel === '$whatsapp') {
    const phone = value.replace(/[\s-]/g, '');
    if (!E164.test(phone)) throw invalid('is not an E.164 phone number (like +14155550123)');
    return phone;
  }
  if (!isText(value, 4096)) throw invalid('must be a non-empty string of at most 4096 characters');
  return value.trim();
}

/** Equal JSON values; key order does not matter, array order does. */
export const sameJson = (a: unknown, b: unknown): boolean => isDeepStrictEqual(a, b);

/** Adds a (normalized) value unless the channel already has it. */
export function addChannelEntry(
  channels: Channels,
  channel: ChannelKey,
  value: string | Json,
  idProvider?: string | null,
): Channels {
  const entries = channels[channel] ?? [];
  if (entries.some((entry) => sameJson(entry.value, value))) return channels;
  const provider = idProvider ?? defaultProviders[channel];
  const entry: ChannelEntry = {
    value,
    status: 'active',
    perma_status: 'active',
    ...(provider ? { id_provider: provider } : {}),
  };
  return { ...channels, [channel]: [...entries, entry] };
}

export function removeChannelEntry(channels: Channels, channel: ChannelKey, value: string | Json): Channels {
  const entries = channels[channel];
  if (!entries) return channels;
  const kept = entries.filter((entry) => !sameJson(entry.value, value));
  if (kept.length === entries.length) return channels;
  const { [channel]: _removed, ...rest } = channels;
  return kept.length > 0 ? { ...rest, [channel]: kept } : rest;
}

export function clearChannel(channels: Channels, channel: ChannelKey): Channels {
  if (!(channel in channels)) return channels;
  const { [channel]: _removed, ...rest } = channels;
  return rest;
}

/** `$id_provider` must be a short string when given; null or absent means the channel's default. */
export function providerOf(raw: unknown, at: string): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (!isText(raw, 64))
    throw badRequest(`${at}: ${show(raw)} must be a string of at most 64 characters`, { [at]: 'is invalid' });
  return raw.trim();
}
