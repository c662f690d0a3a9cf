import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { scopeSegmentBackend } from '../repositories/segment-scopes.js';
import {
  explainFirst,
  RelationScales,
  queryError,
  rowsOf,
  SEGMENT_ROLE,
  SEGMENT_WORK_MEM,
  segmentSql,
  type SegmentLimits,
  type SegmentRunner,
  type WrappedResult,
} from './runner.js';

/** Thrown to end the sandbox transaction: it never commits, whatever the query did. */
class RolledBack {
  constructor(readonly result: WrappedResult | undefined) {}
}

/** How old the planner's statistics may be before a dry run refreshes them (the plan bound relies on them). */
const ANALYZE_EVERY_MS = 60_000;

/**
 * The embedded engine's barrier. PGlite has one connection and its session user is a superuser,
 * so there is no second login: the query runs inside a transaction that is always rolled back,
 * after `SET LOCAL ROLE herald_segments` (a role that is a member of nothing; the superuser
 * session may enter it without membership). The migration revoked EXECUTE on set_config and
 * every SQL-running function from PUBLIC in this database, which Herald owns alone, so the role
 * cannot switch back: `set_config('role', …)` is refused by privilege. The scope row is written
 * in the same transaction and disappears with it; session-level advisory locks, the one thing a
 * rollback keeps, are released after. Nothing can interrupt PGlite, so the bound on work is the
 * plan estimate, checked before the query runs.
 */
export class EmbeddedSegmentRunner implements SegmentRunner {
  private analyzedAt = 0;
  private pid: number | undefined;
  private readonly scales = new RelationScales();

  constructor(
    private readonly db: Db,
    private readonly limits: SegmentLimits,
  ) {}

  async run(statement: string, workspaceId: number) {
    if (Date.now() - this.analyzedAt > ANALYZE_EVERY_MS) {
      await sql`analyze public.users, public.events`.execute(this.db);
      this.analyzedAt = Date.now();
    }
    const { sql: text, parameters } = segmentSql(statement, this.limits.maxResultBytes);
    const pid = await this.backendPid();
    try {
      await this.db.transaction().execute(async (trx) => {
        await scopeSegmentBackend(trx, pid, workspaceId);
        await sql`select
          set_config('transaction_read_only', 'on', true),
          set_config('work_mem', ${SEGMENT_WORK_MEM}, true),
          set_config('TimeZone', 'UTC', true),
          set_config('standard_conforming_strings', 'on', true),
          set_config('search_path', 'segment, pg_temp', true),
          set_config('role', ${SEGMENT_ROLE}, true)`.execute(trx);
        const query = async (text: string, values: unknown[] = []) =>
          (await trx.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, values))).rows;
        const scale = await this.scales.of(workspaceId, (probe) => query(probe));
        await explainFirst((explain) => query(explain, [...parameters]), text, this.limits, scale);
        const result = await trx.executeQuery<WrappedResult>(CompiledQuery.raw(text, parameters));
        throw new RolledBack(result.rows[0]);
      });
    } catch (error) {
      if (error instanceof RolledBack) return rowsOf(error.result, this.limits);
      throw queryError(error, this.limits);
    } finally {
      await sql`select pg_advisory_unlock_all()`.execute(this.db);
    }
    throw new Error('unreachable: the sandbox transaction always rolls back');
  }

  private async backendPid() {
    this.pid ??= (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(this.db)).rows[0]!.pid;
    return this.pid;
  }

  async close() {}
}
