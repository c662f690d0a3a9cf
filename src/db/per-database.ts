import type { QueryExecutorProvider } from 'kysely';

/**
 * A cache of what a database never changes once written (committed versions), kept apart per
 * database: ids are the database's own, so two databases in one process (the test suite opens one
 * per file) may use the same id for different versions. A Kysely instance and its transactions
 * share one adapter, which stands for the database here.
 */
export function perDatabase<V>(): (db: QueryExecutorProvider) => Map<string, V> {
  const caches = new WeakMap<object, Map<string, V>>();
  return (db) => {
    const identity = db.getExecutor().adapter;
    let cache = caches.get(identity);
    if (!cache) caches.set(identity, (cache = new Map()));
    return cache;
  };
}
