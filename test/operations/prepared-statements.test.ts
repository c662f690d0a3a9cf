import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createDatabase, namePreparedStatements, PLANNED_EACH_TIME, type Db } from '../../src/db/database.js';
import { findRuns, lockRuns, saveRunsProgress } from '../../src/repositories/runs.js';
import { findMessagesToDeliver, saveDeliveries } from '../../src/repositories/messages.js';
import { findExecutions } from '../../src/repositories/executions.js';

const url = process.env.DATABASE_URL;

/** The named statements of the one session a pool of size 1 holds. */
const preparedOf = async (db: Db) =>
  (
    await sql<{
      name: string;
      statement: string;
    }>`select name, statement from pg_prepared_statements order by name`.execute(db)
  ).rows;

const lookup = (db: Db, n: number) => sql<{ n: number }>`select ${n}::int * 2 as n`.execute(db);

describe('prepared statements', () => {
  it('are on by default and can be turned off', () => {
    expect(loadConfig({}).DATABASE_PREPARED_STATEMENTS).toBe(true);
    expect(loadConfig({ DATABASE_PREPARED_STATEMENTS: 'false' }).DATABASE_PREPARED_STATEMENTS).toBe(false);
  });

  it.runIf(url)('name a parameterised statement from its second execution, and answer the same', async () => {
    const { db } = createDatabase({ url: url!, poolSize: 1 });
    try {
      expect((await lookup(db, 1)).rows).toEqual([{ n: 2 }]);
      expect(await preparedOf(db)).toEqual([]);
      expect((await lookup(db, 2)).rows).toEqual([{ n: 4 }]);
      expect((await lookup(db, 3)).rows).toEqual([{ n: 6 }]);
      expect(await preparedOf(db)).toEqual([{ name: 'herald_1', statement: 'select $1::int * 2 as n' }]);
      // Statements without parameters (transaction control, one-off SQL) are never named.
      await db.transaction().execute(async (trx) => sql`select 1`.execute(trx));
      await db.transaction().execute(async (trx) => sql`select 1`.execute(trx));
      expect((await preparedOf(db)).map((row) => row.name)).toEqual(['herald_1']);
    } finally {
      await db.destroy();
    }
  });

  it.runIf(url)('are not used when turned off', async () => {
    const { db } = createDatabase({ url: url!, poolSize: 1, preparedStatements: false });
    try {
      for (const n of [1, 2, 3]) await lookup(db, n);
      expect(await preparedOf(db)).toEqual([]);
    } finally {
      await db.destroy();
    }
  });

  it.runIf(url)('stop naming at the limit, and statements past it still run', async () => {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    namePreparedStatements(pool, 2);
    try {
      for (const round of [1, 2]) {
        for (const factor of [2, 3, 5]) {
          const { rows } = await pool.query(`select $1::int * ${factor} as n`, [round]);
          expect(rows).toEqual([{ n: round * factor }]);
        }
      }
      const { rows } = await pool.query('select name, statement from pg_prepared_statements order by name');
      expect(rows).toEqual([
        { name: 'herald_1', statement: 'select $1::int * 2 as n' },
        { name: 'herald_2', statement: 'select $1::int * 3 as n' },
      ]);
    } finally {
      await pool.end();
    }
  });

  it.runIf(url)('survive a statement that fails to prepare', async () => {
    const { db } = createDatabase({ url: url!, poolSize: 1 });
    try {
      const broken = (n: number) => sql`select ${n}::int from no_such_table`.execute(db);
      await expect(broken(1)).rejects.toThrow(/no_such_table/);
      await expect(broken(2)).rejects.toThrow(/no_such_table/);
      await expect(broken(3)).rejects.toThrow(/no_such_table/);
      expect((await lookup(db, 4)).rows).toEqual([{ n: 8 }]);
    } finally {
      await db.destroy();
    }
  });

  it.runIf(url)('leave a statement planned each time unnamed, as the engine’s batch lookups are', async () => {
    const { db } = createDatabase({ url: url!, poolSize: 1 });
    try {
      const marked = (n: number) =>
        sql<{ n: number }>`select ${n}::int * 7 as n${sql.raw(PLANNED_EACH_TIME)}`.execute(db);
      for (const n of [1, 2, 3]) expect((await marked(n)).rows).toEqual([{ n: n * 7 }]);
      // The lookups of a batch's runs, messages and executions, in tables a fan-out or triggers grow (src/db/database.ts).
      for (let round = 0; round < 3; round++) {
        await db.transaction().execute(async (trx) => {
          await lockRuns(trx, ['r-none']);
          await saveRunsProgress(trx, [{ id: 'r-none', status: 'completed', position: [1] }]);
        });
        await findRuns(db, ['r-none']);
        await findMessagesToDeliver(db, ['m-none']);
        await findExecutions(db, ['e-none']);
        await saveDeliveries(db, [{ id: 'm-none', status: 'sent_by_vendor' }]);
      }
      expect(await preparedOf(db)).toEqual([]);
      // Unmarked, the same statement is named from its second execution.
      for (const n of [1, 2]) await lookup(db, n);
      expect((await preparedOf(db)).map((row) => row.name)).toEqual(['herald_1']);
    } finally {
      await db.destroy();
    }
  });
});
