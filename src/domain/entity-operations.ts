import { fieldError } from '../errors.js';
import {
  addChannelEntry,
  sameJson,
  CHANNEL_MODIFIERS,
  clearChannel,
  isChannelKey,
  normalizeChannelValue,
  providerOf,
  removeChannelEntry,
  type Channels,
} from './channels.js';
import { isObject } from './values.js';

/**
 * The edit operations users and objects share, as pure functions over their state. Nothing here
 * touches the database: callers lock the rows, apply, and write the results back.
 */
export interface EntityState {
  properties: Record<string, unknown>;
  channels: Channels;
}

export const OPERATION_KEYS = ['$set', '$set_once', '$add', '$increment', '$append', '$remove', '$unset'] as const;

type Json = Record<string, unknown>;
const show = (value: unknown) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));
/** `a.b`, or `b` at the top of the body. */
const path = (at: string, key: string) => (at ? `${at}.${key}` : key);

/** `$preferred_language` (what the SDKs' set_preferred_language sends) is stored as `$locale`. */
export const propertyKey = (key: string) => (key === '$preferred_language' ? '$locale' : key);

const LOCALE = /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{2,8})*$/;

/** Zone names already found valid: building an Intl.DateTimeFormat per recipient was a fifth of a batch's CPU. */
const knownTimeZones = new Set<string>();
const KNOWN_TIME_ZONES_LIMIT = 1000;

export function isTimeZone(name: string): boolean {
  if (knownTimeZones.has(name)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
  } catch {
    return false;
  }
  // Bounded: IANA has ~600 names, but aliases and case variants ("europe/paris") are accepted too.
  if (knownTimeZones.size >= KNOWN_TIME_ZONES_LIMIT) knownTimeZones.clear();
  knownTimeZones.add(name);
  return true;
}

/** Reserved properties carry checked values: `$timezone` an IANA zone name, `$locale` a language tag. */
function checkedProperty(key: string, value: unknown, at: string): unknown {
  if (key === '$timezone' && !(typeof value === 'string' && isTimeZone(value))) {
    throw fieldError(at, `${show(value)} is not an IANA time zone name (like Europe/Paris)`);
  }
  if (key === '$locale' && !(typeof value === 'string' && LOCALE.test(value))) {
    throw fieldError(at, `${show(value)} is not a language or locale code (like en or fr_FR)`);
  }
  return value;
}

function propertyName(raw: string, at: string): string {
  const key = raw.trim();
  if (key.length === 0 || key.length > 256) throw fieldError(at, 'property names must have 1 to 256 characters');
  if (isChannelKey(key)) throw fieldError(at, `${key} is a channel: change it with $append, $remove or $unset`);
  return propertyKey(key);
}

function objectArgument(value: unknown, at: string): Json {
  if (!isObject(value)) throw fieldError(at, 'must be an object');
  return value;
}

const listValues = (value: unknown) => (Array.isArray(value) ? value : [value]);

/** `$append`/`$remove` on a channel: one value or a list, with `$id_provider` beside it. */
function editChannel(
  state: EntityState,
  op: '$append' | '$remove',
  channel: string,
  value: unknown,
  args: Json,
  at: string,
): EntityState {
  if (!isChannelKey(channel)) return state;
  const provider = providerOf(args.$id_provider, path(at, '$id_provider'));
  let channels = state.channels;
  for (const item of listValues(value)) {
    if (op === '$append') {
      channels = addChannelEntry(channels, channel, normalizeChannelValue(channel, item, path(at, channel)), provider);
    } else {
      let normalized: unknown = item;
      try {
        normalized = normalizeChannelValue(channel, item, path(at, channel));
      } catch {
        // Removing a value that could never have been added changes nothing.
      }
      channels = removeChannelEntry(channels, channel, normalized as string);
    }
  }
  return { ...state, channels };
}

function editList(properties: Json, op: '$append' | '$remove', key: string, value: unknown, at: string): Json {
  const current = properties[key];
  if (current === undefined) return op === '$append' ? { ...properties, [key]: [value] } : properties;
  if (!Array.isArray(current)) throw fieldError(at, `cannot ${op.slice(1)}: property ${key} is not a list`);
  const present = current.some((item) => sameJson(item, value));
  if (op === '$append') return present ? properties : { ...properties, [key]: [...current, value] };
  return present ? { ...properties, [key]: current.filter((item) => !sameJson(item, value)) } : properties;
}

function applyOne(state: EntityState, name: string, argument: unknown, at: string): EntityState {
  switch (name) {
    case '$set':
    case '$set_once': {
      const properties = { ...state.properties };
      for (const [raw, value] of Object.entries(objectArgument(argument, at))) {
        const key = propertyName(raw, path(at, raw));
        if (name === '$set_once' && key in properties) continue;
        properties[key] = checkedProperty(key, value, path(at, raw));
      }
      return { ...state, properties };
    }
    case '$add':
    case '$increment': {
      const properties = { ...state.properties };
      for (const [raw, value] of Object.entries(objectArgument(argument, at))) {
        const key = propertyName(raw, path(at, raw));
        if (typeof value !== 'number' || !Number.isFinite(value))
          throw fieldError(path(at, raw), `${show(value)} is not a number`);
        const current = properties[key] ?? 0;
        if (typeof current !== 'number') throw fieldError(path(at, raw), `cannot add: property ${key} is not a number`);
        properties[key] = current + value;
      }
      return { ...state, properties };
    }
    case '$append':
    case '$remove': {
      const args = objectArgument(argument, at);
      let next = state;
      for (const [raw, value] of Object.entries(args)) {
        if ((CHANNEL_MODIFIERS as readonly string[]).includes(raw)) continue;
        if (isChannelKey(raw.trim())) {
          next = editChannel(next, name, raw.trim(), value, args, at);
        } else {
          const key = propertyName(raw, path(at, raw));
          next = { ...next, properties: editList(next.properties, name, key, value, path(at, raw)) };
        }
      }
      return next;
    }
    case '$unset': {
      const keys = typeof argument === 'string' ? [argument] : argument;
      if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'string'))
        throw fieldError(at, 'must be a list of property names');
      let { properties, channels } = state;
      for (const raw of keys as string[]) {
        const key = raw.trim();
        if (isChannelKey(key)) {
          channels = clearChannel(channels, key);
        } else {
          const { [propertyKey(key)]: _removed, ...rest } = properties;
          properties = rest;
        }
      }
      return { properties, channels };
    }
    default:
      throw fieldError(at, `is not an operation; use one of ${OPERATION_KEYS.join(', ')}`);
  }
}

/**
 * Applies `operations` in order (and the keys of each operation in their order) to a copy of
 * `state`. `at` prefixes the location named in errors, e.g. `operations` or `[3].$user_operations`.
 */
export function applyOperations(state: EntityState, operations: unknown, at: string): EntityState {
  if (!Array.isArray(operations)) throw fieldError(at, 'must be a list of operations');
  let next = state;
  operations.forEach((operation, index) => {
    const opAt = `${at}[${index}]`;
    if (!isObject(operation)) throw fieldError(opAt, 'must be an object');
    for (const [name, argument] of Object.entries(operation)) next = applyOne(next, name, argument, `${opAt}.${name}`);
  });
  return next;
}

/** Whether applying changed anything: a no-op edit leaves `updated_at` alone. */
export const sameState = (a: EntityState, b: EntityState) =>
  sameJson(a.properties, b.properties) && sameJson(a.channels, b.channels);

/**
 * A flat upsert body (`{$email: [...], $timezone, name, …}`): channel keys append (one value or a
 * list, `$id_provider` applying to all of them), every other key is set. Errors name the body key,
 * under `at` when given (e.g. `recipients[2]`).
 */
export function applyUpsert(state: EntityState, body: Json, at = ''): EntityState {
  let next = state;
  const set: Json = {};
  for (const [key, value] of Object.entries(body)) {
    if ((CHANNEL_MODIFIERS as readonly string[]).includes(key)) continue;
    if (isChannelKey(key)) next = editChannel(next, '$append', key, value, body, at);
    else set[key] = value;
  }
  return applyOne(next, '$set', set, at);
}
