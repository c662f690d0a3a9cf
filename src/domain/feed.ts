import { badRequest } from '../errors.js';

/**
 * The in-app feed's rules (docs/spec/engine.md §8, after the official web SDK): what a store query
 * selects and how a cursor is read. Pure: the repository turns a FeedFilter into SQL.
 */

/** What a feed list or count selects among one subscriber's delivered inbox messages. */
export interface FeedFilter {
  /** true: read only; false: unread only; undefined: both. */
  read?: boolean;
  /** The web SDK shows archived notifications only in a store that asks for them. */
  archived: boolean;
  /** Any of these tags (none: every tag). */
  tags: string[];
  /** Any of these categories (none: every category). */
  categories: string[];
}

export interface FeedStore {
  storeId: string;
  filter: FeedFilter;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** What a reader parsed, or the 400 naming what it could not read. */
export function parsedOrBadRequest<T>(parsed: Parsed<T>): T {
  if (!parsed.ok) throw badRequest(parsed.message);
  return parsed.value;
}

const MAX_LIST = 100;

function stringsOf(value: unknown, at: string): Parsed<string[]> {
  // The web SDK sends `{or: [...]}`; a bare list or string is taken too.
  const list = value && typeof value === 'object' && !Array.isArray(value) ? (value as { or?: unknown }).or : value;
  if (list === undefined || list === null) return { ok: true, value: [] };
  const items = typeof list === 'string' ? [list] : list;
  if (!Array.isArray(items) || items.some((item) => typeof item !== 'string'))
    return { ok: false, message: `${at} must be a list of strings (or {"or": [...]})` };
  if (items.length > MAX_LIST) return { ok: false, message: `${at} holds at most ${MAX_LIST} values` };
  return { ok: true, value: items as string[] };
}

function optionalBoolean(value: unknown, at: string): Parsed<boolean | undefined> {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (typeof value !== 'boolean') return { ok: false, message: `${at} must be true, false or absent` };
  return { ok: true, value };
}

/** One store as the web SDK sends it: `{store_id, query: {read, archived, tags: {or}, categories: {or}}}`. */
export function readStore(value: unknown, at: string): Parsed<FeedStore> {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: `${at} must be an object` };
  const store = value as { store_id?: unknown; query?: unknown };
  if (typeof store.store_id !== 'string' || store.store_id === '')
    return { ok: false, message: `${at}.store_id must be a non-empty string` };
  const query = (store.query ?? {}) as Record<string, unknown>;
  if (typeof query !== 'object' || Array.isArray(query)) return { ok: false, message: `${at}.query must be an object` };
  const read = optionalBoolean(query.read, `${at}.query.read`);
  if (!read.ok) return read;
  const archived = optionalBoolean(query.archived, `${at}.query.archived`);
  if (!archived.ok) return archived;
  const tags = stringsOf(query.tags, `${at}.query.tags`);
  if (!tags.ok) return tags;
  const categories = stringsOf(query.categories, `${at}.query.categories`);
  if (!categories.ok) return categories;
  return {
    ok: true,
    value: {
      storeId: store.store_id,
      filter: { read: read.value, archived: archived.value ?? false, tags: tags.value, categories: categories.value },
    },
  };
}

/** The filter of a list without a store: every unarchived notification. */
export const DEFAULT_FILTER: FeedFilter = { archived: false, tags: [], categories: [] };

function parseJson(text: string, at: string): Parsed<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, message: `${at} must be JSON` };
  }
}

/** `store` of a list call: JSON of one store, or absent (the default store). */
export function readStoreParam(text: string | undefined): Parsed<FeedFilter> {
  if (text === undefined || text === '' || text === 'null') return { ok: true, value: DEFAULT_FILTER };
  const json = parseJson(text, 'store');
  if (!json.ok) return json;
  if (json.value === null) return { ok: true, value: DEFAULT_FILTER };
  const store = readStore(json.value, 'store');
  return store.ok ? { ok: true, value: store.value.filter } : store;
}

export const MAX_STORES = 20;

/** `stores` of a count call: JSON of a list of stores, or absent. */
export function readStoresParam(text: string | undefined): Parsed<FeedStore[]> {
  if (text === undefined || text === '' || text === 'null') return { ok: true, value: [] };
  const json = parseJson(text, 'stores');
  if (!json.ok) return json;
  if (json.value === null) return { ok: true, value: [] };
  if (!Array.isArray(json.value)) return { ok: false, message: 'stores must be a list' };
  if (json.value.length > MAX_STORES) return { ok: false, message: `stores holds at most ${MAX_STORES} stores` };
  const stores: FeedStore[] = [];
  for (const [index, item] of json.value.entries()) {
    const store = readStore(item, `stores[${index}]`);
    if (!store.ok) return store;
    if (store.value.storeId === 'badge') return { ok: false, message: `stores[${index}].store_id 'badge' is reserved` };
    stores.push(store.value);
  }
  return { ok: true, value: stores };
}

/** Where the next page starts: after the web SDK's last notification `[is_pinned, created_on]`. */
export interface FeedCursor {
  pinned: boolean;
  createdOnMs: number;
}

export function readSearchAfter(text: string | undefined): Parsed<FeedCursor | undefined> {
  if (text === undefined || text === '') return { ok: true, value: undefined };
  const json = parseJson(text, 'search_after');
  if (!json.ok) return json;
  const value = json.value;
  if (Array.isArray(value) && value.length === 0) return { ok: true, value: undefined };
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    typeof value[0] !== 'boolean' ||
    typeof value[1] !== 'number' ||
    !Number.isSafeInteger(value[1]) ||
    value[1] < 0
  )
    return { ok: false, message: 'search_after must be [is_pinned (boolean), created_on (epoch ms)] or []' };
  return { ok: true, value: { pinned: value[0], createdOnMs: value[1] } };
}
