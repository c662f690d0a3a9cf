import { badRequest } from '../errors.js';

/**
 * One offset page of a list already in memory (categories of a definition, files of a version).
 * The query schema bounds limit and offset, but its coercion lets `Infinity` through as a number;
 * routes that page in SQL get it refused by the database, these must refuse it themselves.
 */
export function offsetPage<T, R>(items: T[], query: { limit: number; offset: number }, present: (item: T) => R) {
  for (const field of ['limit', 'offset'] as const) {
    if (!Number.isSafeInteger(query[field]))
      throw badRequest(`${field}: must be an integer`, { [field]: 'must be an integer' });
  }
  const { limit, offset } = query;
  return { meta: { count: items.length, limit, offset }, results: items.slice(offset, offset + limit).map(present) };
}
