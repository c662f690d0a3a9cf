import { CompiledQuery } from 'kysely';
import type { Db as IDatabase } from 'pg-boss';
import type { Db } from '../db/database.js';

/**
 * What Herald assumes of pg-boss beyond its public API, in one file, for the version package.json pins
 * (`~12.38.0`: patch releases only). Each assumption has its test (test/engine/pg-boss-internals.test.ts);
 * an upgrade that breaks one fails there, not in production.
 *
 * 1. Its LISTEN channel for a schema is `'pgboss_' || left(encode(sha224(schema), 'hex'), 24)` (pg-boss's
 *    `notifyChannelSql`, not exported): a NOTIFY on it wakes the schema's workers.
 * 2. `insert` sends one statement with parameters numbered from `$1`, which may start with `WITH`: it can be
 *    prefixed with the caller's own statement as a CTE, its parameters renumbered after the caller's.
 */

/** pg-boss's channel for the schema given as `$1` (assumption 1). */
const CHANNEL = `'pgboss_' || left(encode(sha224(convert_to($1, 'UTF8')), 'hex'), 24)`;

/** The channel itself, read (its test compares it with pg-boss's). */
export const channelQuery = (schema: string) => CompiledQuery.raw(`select ${CHANNEL} as channel`, [schema]);

/** The statement that wakes the workers of queue `name` in `schema`. */
export const notifyQuery = (schema: string, name: string) =>
  CompiledQuery.raw(`select pg_notify(${CHANNEL}, $2)`, [schema, name]);

/**
 * A pg-boss database handle that runs each of pg-boss's statements with `first` ahead of it, as a CTE, in one
 * statement on `db` (assumption 2).
 */
export function withFirstStatement(db: Db, first: CompiledQuery): IDatabase {
  const offset = first.parameters.length;
  return {
    async executeSql(text: string, values?: unknown[]) {
      const renumbered = text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
      const head = `with herald_first as (${first.sql})`;
      const sqlText = /^\s*with\s/i.test(renumbered)
        ? renumbered.replace(/^\s*with\s/i, `${head}, `)
        : `${head} ${renumbered}`;
      const result = await db.executeQuery(CompiledQuery.raw(sqlText, [...first.parameters, ...(values ?? [])]));
      return { rows: [...result.rows] as unknown[] };
    },
  } as IDatabase;
}
