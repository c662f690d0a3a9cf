import { sql, type Expression, type SqlBool } from 'kysely';
import { badRequest } from '../errors.js';
import type { CursorQuery } from '../schemas/cursor.js';

/**
 * Keyset pagination over an increasing key (a table's identity column, or a ULID id): stable order,
 * and cursors stay valid while rows are inserted or deleted. A cursor is the key, made opaque. A
 * `descending` window lists newest first: `after` then pages towards older rows.
 */
export interface CursorWindow<K extends number | string = number> {
  limit: number;
  after: K | null;
  before: K | null;
  /** Paging towards the start: rows are fetched in the opposite order, then reversed. */
  backward: boolean;
  /** Newest first (`?order=desc`). */
  descending?: boolean;
}

const PREFIX = 'k1:';
const TEXT_PREFIX = 't1:';
export const encodeCursor = (key: number | string) =>
  Buffer.from(`${typeof key === 'string' ? TEXT_PREFIX : PREFIX}${key}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string, field: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const key = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(key))
    throw badRequest(`${field}: is not a cursor this API returned`, { [field]: 'is not a valid cursor' });
  return key;
}

function decodeTextCursor(cursor: string, field: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const key = text.startsWith(TEXT_PREFIX) ? text.slice(TEXT_PREFIX.length) : '';
  if (!/^[0-9A-Za-z_-]{1,64}$/.test(key))
    throw badRequest(`${field}: is not a cursor this API returned`, { [field]: 'is not a valid cursor' });
  return key;
}

function checkOneSide(query: CursorQuery) {
  if (query.before !== undefined && query.after !== undefined) {
    throw badRequest('before and after cannot be used together', { before: 'cannot be used with after' });
  }
}

export function cursorWindow(query: CursorQuery, descending = false): CursorWindow {
  checkOneSide(query);
  const after = query.after === undefined ? null : decodeCursor(query.after, 'after');
  const before = query.before === undefined ? null : decodeCursor(query.before, 'before');
  return { limit: query.limit, after, before, backward: before !== null, descending };
}

/** A window over a text key (ULID ids), newest first. */
export function textCursorWindow(query: CursorQuery): CursorWindow<string> {
  checkOneSide(query);
  const after = query.after === undefined ? null : decodeTextCursor(query.after, 'after');
  const before = query.before === undefined ? null : decodeTextCursor(query.before, 'before');
  return { limit: query.limit, after, before, backward: before !== null, descending: true };
}

/** The page's bounds on `column`, for `.where(...)`. */
export function withinWindow(column: string, window: CursorWindow<number | string>): Expression<SqlBool> {
  const [past, short] = window.descending ? (['<', '>'] as const) : (['>', '<'] as const);
  if (window.after !== null) return sql<SqlBool>`${sql.ref(column)} ${sql.raw(past)} ${window.after}`;
  if (window.before !== null) return sql<SqlBool>`${sql.ref(column)} ${sql.raw(short)} ${window.before}`;
  return sql<SqlBool>`true`;
}

/** Rows on the far side of the cursor exist (counted beside the total, in the same statement). */
export function beyondWindow(column: string, window: CursorWindow<number | string>) {
  const [upTo, from] = window.descending ? (['>=', '<='] as const) : (['<=', '>='] as const);
  if (window.after !== null)
    return sql<number>`count(*) filter (where ${sql.ref(column)} ${sql.raw(upTo)} ${window.after})`;
  if (window.before !== null)
    return sql<number>`count(*) filter (where ${sql.ref(column)} ${sql.raw(from)} ${window.before})`;
  return sql<number>`0`;
}

export const windowOrder = (window: CursorWindow<number | string>) =>
  window.backward !== (window.descending ?? false) ? ('desc' as const) : ('asc' as const);

/** The key just past `key` in the page's direction (an empty page still points back across its cursor). */
function beside(key: number | string, step: 1 | -1, descending: boolean) {
  // A text key has no neighbour to name: the cursor itself (an empty page's way back then starts one row further).
  return typeof key === 'number' ? key + (descending ? -step : step) : key;
}

/** Turns `limit + 1` fetched rows into the page and its meta. */
export function cursorPage<Row, K extends number | string = number>(
  rows: Row[],
  keyOf: (row: Row) => K,
  window: CursorWindow<K>,
  totals: { count: number; beyond: number },
) {
  const more = rows.length > window.limit;
  const page = rows.slice(0, window.limit);
  if (window.backward) page.reverse();
  const hasPrev = window.backward ? more : totals.beyond > 0;
  const hasNext = window.backward ? totals.beyond > 0 : more;
  const first = page[0];
  const last = page[page.length - 1];
  // An empty page still points back across its cursor.
  const descending = window.descending ?? false;
  const beforeKey = first ? keyOf(first) : window.after !== null ? beside(window.after, 1, descending) : null;
  const afterKey = last ? keyOf(last) : window.before !== null ? beside(window.before, -1, descending) : null;
  return {
    results: page,
    meta: {
      count: Number(totals.count),
      limit: window.limit,
      has_prev: hasPrev,
      before: hasPrev && beforeKey !== null ? encodeCursor(beforeKey) : null,
      has_next: hasNext,
      after: hasNext && afterKey !== null ? encodeCursor(afterKey) : null,
    },
  };
}
