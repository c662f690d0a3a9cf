import { sql, type Expression, type SqlBool } from 'kysely';
import { badRequest } from '../errors.js';
import type { CursorQuery } from '../schemas/cursor.js';

/**
 * Keyset pagination over an increasing bigint key (a table's identity column): stable order,
 * and cursors stay valid while rows are inserted or deleted. A cursor is the key, made opaque.
 */
export interface CursorWindow {
  limit: number;
  after: number | null;
  before: number | null;
  /** Paging towards the start: rows are fetched in descending order, then reversed. */
  backward: boolean;
}

const PREFIX = 'k1:';
export const encodeCursor = (key: number) => Buffer.from(`${PREFIX}${key}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string, field: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const key = text.startsWith(PREFIX) ? Number(text.slice(PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(key))
    throw badRequest(`${field}: is not a cursor this API returned`, { [field]: 'is not a valid cursor' });
  return key;
}

export function cursorWindow(query: CursorQuery): CursorWindow {
  if (query.before !== undefined && query.after !== undefined) {
    throw badRequest('before and after cannot be used together', { before: 'cannot be used with after' });
  }
  const after = query.after === undefined ? null : decodeCursor(query.after, 'after');
  const before = query.before === undefined ? null : decodeCursor(query.before, 'before');
  return { limit: query.limit, after, before, backward: before !== null };
}

/** The page's bounds on `column`, for `.where(...)`. */
export function withinWindow(column: string, window: CursorWindow): Expression<SqlBool> {
  if (window.after !== null) return sql<SqlBool>`${sql.ref(column)} > ${window.after}`;
  if (window.before !== null) return sql<SqlBool>`${sql.ref(column)} < ${window.before}`;
  return sql<SqlBool>`true`;
}

/** Rows on the far side of the cursor exist (counted beside the total, in the same statement). */
export function beyondWindow(column: string, window: CursorWindow) {
  if (window.after !== null) return sql<number>`count(*) filter (where ${sql.ref(column)} <= ${window.after})`;
  if (window.before !== null) return sql<number>`count(*) filter (where ${sql.ref(column)} >= ${window.before})`;
  return sql<number>`0`;
}

export const windowOrder = (window: CursorWindow) => (window.backward ? ('desc' as const) : ('asc' as const));

/** Turns `limit + 1` fetched rows into the page and its meta. */
export function cursorPage<Row>(
  rows: Row[],
  keyOf: (row: Row) => number,
  window: CursorWindow,
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
  const beforeKey = first ? keyOf(first) : window.after !== null ? window.after + 1 : null;
  const afterKey = last ? keyOf(last) : window.before !== null ? window.before - 1 : null;
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
