import { sql } from 'kysely';
import type { DatabaseHandle, Db } from './database.js';

/**
 * The embedded database's autovacuum (docs/engine.md, "Table upkeep"). PostgreSQL's autovacuum is a
 * process of its own; PGlite is one backend inside Herald's process and has none, so without this
 * nothing ever runs VACUUM or ANALYZE: the dead rows of updated tables (runs, pg-boss's jobs) are
 * never reclaimed, and the planner plans without statistics (`reltuples` -1 on every table). Every
 * UPKEEP_INTERVAL_MS a check reads `pg_stat_user_tables` and runs, table by table, what autovacuum's
 * default thresholds call for. On PostgreSQL nothing of this starts: its autovacuum does the same.
 */

// autovacuum's defaults (PostgreSQL's documentation, "The Autovacuum Daemon"): the same thresholds, so a
// table is cared for here when PostgreSQL would care for it. Counted against `n_live_tup` (autovacuum uses
// `reltuples`, which stays -1 until a first ANALYZE, and then `n_live_tup` is the better of the two).
/** autovacuum_vacuum_threshold and _scale_factor: VACUUM past this many dead rows. */
export const VACUUM_THRESHOLD = 50;
export const VACUUM_SCALE_FACTOR = 0.2;
/**
 * autovacuum_vacuum_insert_threshold and _scale_factor: VACUUM a table only ever inserted into too (the
 * executions, the events), which sets its pages all-visible and freezes them before they are old.
 */
export const VACUUM_INSERT_THRESHOLD = 1000;
export const VACUUM_INSERT_SCALE_FACTOR = 0.2;
/** autovacuum_analyze_threshold and _scale_factor: ANALYZE past this many rows changed since the last. */
export const ANALYZE_THRESHOLD = 50;
export const ANALYZE_SCALE_FACTOR = 0.1;
/**
 * autovacuum_freeze_max_age: a table whose oldest unfrozen transaction id is this old is vacuumed
 * whatever its counts, as PostgreSQL forces, before the database nears transaction id wraparound.
 */
export const FREEZE_MAX_AGE = 200_000_000;

/**
 * The statistics target of the upkeep's ANALYZE, where PostgreSQL's default_statistics_target is 100 (a
 * sample of 30,000 rows). On the tables a 60-second embedded benchmark leaves (32,000 runs, messages and
 * executions), an ANALYZE at 100 held PGlite's one connection, and so every request and job, 270–540 ms per
 * table (880 ms on a cold start); at 10 (a sample of 3,000 rows), 24–37 ms. Herald's statements find rows by
 * keys, whose plans need row and distinct counts more than fine histograms (docs/engine.md, "Table upkeep").
 */
export const UPKEEP_STATISTICS_TARGET = 10;

/**
 * autovacuum_naptime's default. A statement blocks PGlite's one connection, and so the API and the
 * worker, while it runs (docs/engine.md, "Table upkeep", has the measured times);
 * checking more often only splits the same work into more, smaller pauses.
 */
export const UPKEEP_INTERVAL_MS = 60_000;
/**
 * The first check, soon after the start: a database left by a process that never ran upkeep (any
 * before this one) gets its statistics within seconds, not a minute, while the start's own work
 * (migrations, the queue's creation) is over by then.
 */
export const FIRST_UPKEEP_MS = 15_000;

export interface UpkeepLog {
  warn(object: object, message: string): void;
  debug?(object: object, message: string): void;
}

/** A table a check picked, and what it needs. */
export interface UpkeepTarget {
  schema: string;
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/** What a check did to one table: `ms`, the statement's time; `failed`, when it was refused. */
export interface UpkeepDone extends UpkeepTarget {
  ms: number;
  failed?: boolean;
}

/**
 * The tables past a threshold, and those not analyzed since the counters started. PGlite keeps no counters
 * across a restart (PostgreSQL writes them out at shutdown; PGlite's folder never holds them), so each
 * process starts from zero: without that second rule a table quiet since the restart would never be
 * analyzed, and the dead rows left before it never seen. Its ANALYZE counts them too (from its sample:
 * `n_dead_tup`), so the next check vacuums a table that needs it. Plain tables and materialized views,
 * as autovacuum takes: a partitioned table's rows are in its partitions, each its own line.
 */
export async function tablesDue(db: Db): Promise<UpkeepTarget[]> {
  // The counters reach the view at most once a second (PostgreSQL's PGSTAT_MIN_INTERVAL), when a statement
  // ends; a forced flush at the end of this one makes the read below see every write before it.
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const live = sql`s.n_live_tup`;
  const { rows } = await sql<UpkeepTarget>`
    select schema, "table", vacuum, "analyze" from (
      select s.schemaname as schema, s.relname as "table",
        s.n_dead_tup > ${sql.lit(VACUUM_THRESHOLD)} + ${sql.lit(VACUUM_SCALE_FACTOR)} * ${live}
          or s.n_ins_since_vacuum > ${sql.lit(VACUUM_INSERT_THRESHOLD)} + ${sql.lit(VACUUM_INSERT_SCALE_FACTOR)} * ${live}
          or age(c.relfrozenxid) > ${sql.lit(FREEZE_MAX_AGE)} as vacuum,
        s.n_mod_since_analyze > ${sql.lit(ANALYZE_THRESHOLD)} + ${sql.lit(ANALYZE_SCALE_FACTOR)} * ${live}
          or coalesce(s.last_analyze, s.last_autoanalyze) is null as "analyze"
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where c.relkind in ('r', 'm')
    ) due
    where vacuum or "analyze"
    order by schema, "table"`.execute(db);
  return rows;
}

/**
 * One statement per table, each on its own (VACUUM cannot run in a transaction, and a failure, a table dropped
 * since it was picked, is that table's alone: logged, and the next check picks it again if it is still there).
 * `stopping()` is asked before each: once it says yes, no statement starts.
 */
export async function upkeepTables(
  db: Db,
  targets: UpkeepTarget[],
  log: UpkeepLog,
  stopping: () => boolean = () => false,
): Promise<UpkeepDone[]> {
  const done: UpkeepDone[] = [];
  for (const target of targets) {
    if (stopping()) break;
    // Names from the catalog, each quoted as an identifier (a name may hold anything, a dot or a quote).
    const table = sql.id(target.schema, target.table);
    const statement = target.vacuum
      ? target.analyze
        ? sql`vacuum (analyze) ${table}`
        : sql`vacuum ${table}`
      : sql`analyze ${table}`;
    const started = performance.now();
    try {
      if (target.analyze) {
        // The session's setting, for this statement alone: PGlite's one session is every statement's.
        await sql`set default_statistics_target = ${sql.lit(UPKEEP_STATISTICS_TARGET)}`.execute(db);
        try {
          await statement.execute(db);
        } finally {
          await sql`reset default_statistics_target`.execute(db);
        }
      } else await statement.execute(db);
      done.push({ ...target, ms: Math.round(performance.now() - started) });
    } catch (error) {
      done.push({ ...target, ms: Math.round(performance.now() - started), failed: true });
      const { code, message } = error as { code?: string; message?: string };
      log.warn(
        { table: `${target.schema}.${target.table}`, vacuum: target.vacuum, analyze: target.analyze, code, message },
        'table upkeep failed on a table; the next check tries again',
      );
    }
  }
  return done;
}

/**
 * The embedded engine's upkeep loop: a check FIRST_UPKEEP_MS after the start, then UPKEEP_INTERVAL_MS after
 * each check ends (a slow check never overlaps the next). Its timer is unref'd: it never holds a process open.
 */
export class TableUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly log: UpkeepLog,
    private readonly intervalMs = UPKEEP_INTERVAL_MS,
    firstMs = FIRST_UPKEEP_MS,
  ) {
    this.schedule(firstMs);
  }

  /** Whether a next check is waiting on its timer. */
  get scheduled() {
    return this.timer !== undefined;
  }

  /** One check now: the tables past a threshold, each vacuumed or analyzed. Never throws: a failure is logged. */
  async check(): Promise<UpkeepDone[]> {
    if (this.stopped) return [];
    try {
      const done = await upkeepTables(this.db, await tablesDue(this.db), this.log, () => this.stopped);
      if (done.length > 0) this.log.debug?.({ tables: done }, 'table upkeep');
      return done;
    } catch (error) {
      if (!this.stopped) {
        const { code, message } = error as { code?: string; message?: string };
        this.log.warn({ code, message }, 'table upkeep check failed; the next check tries again');
      }
      return [];
    }
  }

  /**
   * No check starts after this; one under way ends after its current statement, which is awaited (a
   * statement still waiting for the database must run before the database closes, not against a closed one).
   */
  async stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    this.log.debug?.({}, 'table upkeep stopped');
  }

  private schedule(ms: number) {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.check().finally(() => {
        if (!this.stopped) this.schedule(this.intervalMs);
      });
    }, ms);
    this.timer.unref();
  }
}

/**
 * The upkeep a database needs from Herald: on the embedded one, started; on PostgreSQL, none (its autovacuum runs).
 * The long-running process starts it with the worker (src/server.ts); the testing kit does not (src/testing.ts).
 */
export function startTableUpkeep(database: Pick<DatabaseHandle, 'kind' | 'db'>, log: UpkeepLog) {
  if (database.kind !== 'embedded') return undefined;
  log.debug?.(
    { first_check_ms: FIRST_UPKEEP_MS, interval_ms: UPKEEP_INTERVAL_MS },
    'table upkeep started (embedded: no autovacuum)',
  );
  return new TableUpkeep(database.db, log);
}
