import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDatabase, type Db } from '../../src/db/database.js';
import {
  FIRST_UPKEEP_MS,
  startTableUpkeep,
  TableUpkeep,
  tablesDue,
  UPKEEP_INTERVAL_MS,
  UPKEEP_STATISTICS_TARGET,
  upkeepTables,
  VACUUM_THRESHOLD,
} from '../../src/db/table-upkeep.js';
import { createPrivateDatabase } from '../support/private-database.js';
import { prepareHeraldProcesses, startServer } from '../support/server-process.js';

/**
 * src/db/table-upkeep.ts: the embedded database's autovacuum. PGlite has none, so Herald runs VACUUM and
 * ANALYZE itself, at autovacuum's default thresholds; on PostgreSQL it starts nothing.
 */

const embedded = !process.env.DATABASE_URL;
// A schema and table names that only work quoted: a name from the catalog is never pasted in unquoted.
const SCHEMA = 'upkeep "test".x';

interface TableStats {
  n_live_tup: number;
  n_dead_tup: number;
  vacuum_count: number;
  analyze_count: number;
  reltuples: number;
}

async function statsOf(db: Db, table: string): Promise<TableStats> {
  const { rows } = await sql<TableStats>`select s.n_live_tup::int, s.n_dead_tup::int, s.vacuum_count::int,
      s.analyze_count::int, c.reltuples::float8
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
    where s.schemaname = ${SCHEMA} and s.relname = ${table}`.execute(db);
  return rows[0]!;
}

const table = (name: string) => sql.id(SCHEMA, name);

/** `rows` rows, then each of them updated `updates` times: one statement each, as a busy table sees. */
async function churn(db: Db, name: string, rows: number, updates: number) {
  await sql`create table ${table(name)} (id int primary key, n int not null default 0)`.execute(db);
  await sql`insert into ${table(name)} (id) select g from generate_series(1, ${rows}::int) g`.execute(db);
  for (let round = 0; round < updates; round++) await sql`update ${table(name)} set n = n + 1`.execute(db);
}

function recordingLog() {
  const warnings: { object: Record<string, unknown>; message: string }[] = [];
  const debugged: { object: Record<string, unknown>; message: string }[] = [];
  return {
    warnings,
    debugged,
    warn: (object: object, message: string) => warnings.push({ object: object as Record<string, unknown>, message }),
    debug: (object: object, message: string) => debugged.push({ object: object as Record<string, unknown>, message }),
  };
}

const mine = <T extends { schema: string }>(done: T[]) => done.filter((target) => target.schema === SCHEMA);

// Its own in-memory PGlite, whichever engine the suite runs on: the upkeep is PGlite's (it starts nothing on PostgreSQL).
describe('table upkeep on the embedded database', { timeout: 120_000 }, () => {
  let db: Db;
  beforeAll(async () => {
    ({ db } = createDatabase({ url: undefined, dataDir: 'memory://' }));
    await sql`select 1`.execute(db);
  });
  afterAll(async () => {
    await db?.destroy();
  });
  beforeEach(async () => {
    await sql`create schema ${sql.id(SCHEMA)}`.execute(db);
  });
  afterEach(async () => {
    await sql`drop schema if exists ${sql.id(SCHEMA)} cascade`.execute(db);
  });
  /** An upkeep whose timer never fires within a test: its checks are the test's calls. */
  const upkeepOf = (log = recordingLog()) => new TableUpkeep(db, log, UPKEEP_INTERVAL_MS, UPKEEP_INTERVAL_MS);

  it('vacuums a table past the dead rows threshold and analyzes one past the changed rows threshold', async () => {
    // 300 rows updated twice: 600 dead rows (> 50 + 0.2 × 300) and 900 changes (> 50 + 0.1 × 300).
    await churn(db, 'churned.table', 300, 2);
    // Inserted only: 300 changes to analyze, no dead row, fewer inserts than a VACUUM waits for (1000 + 0.2 × 300).
    await churn(db, 'inserted', 300, 0);
    // Never analyzed, never vacuumed: what PGlite had before (no autovacuum).
    expect(await statsOf(db, 'churned.table')).toMatchObject({ vacuum_count: 0, analyze_count: 0, reltuples: -1 });

    const log = recordingLog();
    const upkeep = upkeepOf(log);
    try {
      const done = await upkeep.check();
      expect(mine(done)).toEqual([
        { schema: SCHEMA, table: 'churned.table', vacuum: true, analyze: true, ms: expect.any(Number) },
        { schema: SCHEMA, table: 'inserted', vacuum: false, analyze: true, ms: expect.any(Number) },
      ]);
    } finally {
      await upkeep.stop();
    }
    expect(log.warnings).toEqual([]);
    expect(await statsOf(db, 'churned.table')).toEqual({
      n_live_tup: 300,
      n_dead_tup: 0,
      vacuum_count: 1,
      analyze_count: 1,
      reltuples: 300,
    });
    expect(await statsOf(db, 'inserted')).toMatchObject({ vacuum_count: 0, analyze_count: 1, reltuples: 300 });
    // Done: the next check finds nothing to do in them.
    expect(mine(await tablesDue(db))).toEqual([]);
    // Sampled at the upkeep's statistics target (300 distinct ids: 101 histogram bounds at PostgreSQL's 100), and the
    // session's own setting is back.
    const { rows } = await sql<{ bounds: number }>`select array_length(histogram_bounds, 1) as bounds from pg_stats
      where schemaname = ${SCHEMA} and tablename = 'churned.table' and attname = 'id'`.execute(db);
    expect(rows).toEqual([{ bounds: UPKEEP_STATISTICS_TARGET + 1 }]);
    expect((await sql<{ default_statistics_target: string }>`show default_statistics_target`.execute(db)).rows).toEqual(
      [{ default_statistics_target: '100' }],
    );
  });

  it('a table not analyzed since the counters started is analyzed, and the dead rows its ANALYZE counts vacuumed next', async () => {
    await churn(db, 'churned.table', 300, 2);
    await sql`analyze ${table('churned.table')}`.execute(db);
    // A restart, as PGlite has it: its counters are not kept, so every table starts from zero, dead rows unseen
    // (the counts still pending in the session first, or they would reach the view after the reset).
    await sql`select pg_stat_force_next_flush()`.execute(db);
    await sql`select pg_stat_reset()`.execute(db);
    expect(await statsOf(db, 'churned.table')).toMatchObject({ n_dead_tup: 0, analyze_count: 0 });
    const upkeep = upkeepOf();
    try {
      expect(mine(await upkeep.check())).toEqual([
        { schema: SCHEMA, table: 'churned.table', vacuum: false, analyze: true, ms: expect.any(Number) },
      ]);
      expect((await statsOf(db, 'churned.table')).n_dead_tup).toBeGreaterThan(VACUUM_THRESHOLD + 0.2 * 300);
      expect(mine(await upkeep.check())).toEqual([
        { schema: SCHEMA, table: 'churned.table', vacuum: true, analyze: false, ms: expect.any(Number) },
      ]);
    } finally {
      await upkeep.stop();
    }
    expect(await statsOf(db, 'churned.table')).toMatchObject({ n_dead_tup: 0, vacuum_count: 1, analyze_count: 1 });
  });

  it('leaves alone a table under the thresholds', async () => {
    await churn(db, 'quiet', 40, 0);
    const upkeep = upkeepOf();
    try {
      // Never analyzed: the first check does, whatever its counts.
      expect(mine(await upkeep.check()).map(({ table, vacuum, analyze }) => ({ table, vacuum, analyze }))).toEqual([
        { table: 'quiet', vacuum: false, analyze: true },
      ]);
      // 30 of its 40 rows updated: 30 dead (≤ 50 + 0.2 × 40), 30 changes (≤ 50 + 0.1 × 40).
      await sql`update ${table('quiet')} set n = 1 where id <= 30`.execute(db);
      expect(mine(await upkeep.check())).toEqual([]);
    } finally {
      await upkeep.stop();
    }
    expect(await statsOf(db, 'quiet')).toMatchObject({ n_dead_tup: 30, vacuum_count: 0, analyze_count: 1 });
  });

  it('a table that fails (dropped since the check picked it) is logged by name, and the others are still done', async () => {
    await churn(db, 'a dropped one', 300, 2);
    await churn(db, 'churned.table', 300, 2);
    const picked = mine(await tablesDue(db));
    expect(picked.map((target) => target.table)).toEqual(['a dropped one', 'churned.table']);
    await sql`drop table ${table('a dropped one')}`.execute(db);

    const log = recordingLog();
    const done = await upkeepTables(db, picked, log);
    expect(done).toEqual([
      expect.objectContaining({ table: 'a dropped one', failed: true }),
      { schema: SCHEMA, table: 'churned.table', vacuum: true, analyze: true, ms: expect.any(Number) },
    ]);
    expect(log.warnings).toEqual([
      {
        object: expect.objectContaining({ table: `${SCHEMA}.a dropped one`, code: '42P01' }),
        message: 'table upkeep failed on a table; the next check tries again',
      },
    ]);
    expect(await statsOf(db, 'churned.table')).toMatchObject({ n_dead_tup: 0, vacuum_count: 1, analyze_count: 1 });
  });

  it('checks on its timer, the first soon after the start, until stopped', async () => {
    await churn(db, 'churned.table', 300, 2);
    const log = recordingLog();
    const upkeep = new TableUpkeep(db, log, 50, 20);
    try {
      for (let waited = 0; (await statsOf(db, 'churned.table')).vacuum_count === 0 && waited < 20_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await statsOf(db, 'churned.table')).toMatchObject({ vacuum_count: 1, n_dead_tup: 0 });
      expect(log.debugged.some((line) => line.message === 'table upkeep')).toBe(true);
    } finally {
      await upkeep.stop();
    }
    expect(upkeep.scheduled).toBe(false);
    // Stopped: churn past the thresholds again, and no check comes.
    await sql`update ${table('churned.table')} set n = n + 1`.execute(db);
    await sql`update ${table('churned.table')} set n = n + 1`.execute(db);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await upkeep.check()).toEqual([]);
    expect(await statsOf(db, 'churned.table')).toMatchObject({ vacuum_count: 1 });
  });
});

describe('where table upkeep runs', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('embedded: started with one timer, the first check after FIRST_UPKEEP_MS; stop leaves none', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const checks: number[] = [];
    const db = {} as Db;
    const upkeep = startTableUpkeep({ kind: 'embedded', db }, recordingLog())!;
    expect(upkeep).toBeInstanceOf(TableUpkeep);
    vi.spyOn(upkeep, 'check').mockImplementation(async () => {
      checks.push(Date.now());
      return [];
    });
    expect(upkeep.scheduled).toBe(true);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(FIRST_UPKEEP_MS - 1);
    expect(checks).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(checks).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(UPKEEP_INTERVAL_MS);
    expect(checks).toHaveLength(2);
    await upkeep.stop();
    expect(upkeep.scheduled).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * UPKEEP_INTERVAL_MS);
    expect(checks).toHaveLength(2);
  });

  it('PostgreSQL: none (its autovacuum does it), and no timer', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    expect(startTableUpkeep({ kind: 'postgres', db: {} as Db }, recordingLog())).toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it(
    embedded
      ? 'the server starts it with the worker and stops it on SIGTERM, before the database closes'
      : 'the server on PostgreSQL never starts it',
    { timeout: 120_000 },
    async () => {
      const database = await createPrivateDatabase();
      const dataDir = mkdtempSync(join(tmpdir(), 'herald-upkeep-'));
      try {
        const { env } = await prepareHeraldProcesses(database, {
          dataDir,
          slug: 'upkeep',
          env: { LOG_LEVEL: 'debug' },
        });
        const server = await startServer(env);
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
        const messages = server.logLines().map((line) => line.msg);
        const started = messages.indexOf('table upkeep started (embedded: no autovacuum)');
        const stopped = messages.indexOf('table upkeep stopped');
        if (embedded) {
          expect(started).toBeGreaterThan(-1);
          expect(stopped).toBeGreaterThan(started);
          expect(stopped).toBeLessThan(messages.indexOf('shut down cleanly'));
        } else {
          expect(messages).toContain('shut down cleanly');
          expect([started, stopped]).toEqual([-1, -1]);
        }
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
        await database.drop();
      }
    },
  );
});
