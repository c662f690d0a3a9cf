import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/database.js';
import { GuardedClient } from '../db/guarded-client.js';
import { unavailable } from '../errors.js';
import { scopeSegmentBackend, unscopeSegmentBackend } from '../repositories/segment-scopes.js';
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

export interface PostgresSegmentOptions {
  /** Connection string of the segment role (src/segments/connection.ts derives it). */
  url: string;
  poolSize: number;
  connectTimeoutMs: number;
  log: FastifyBaseLogger;
}

/** The role is safe to run hostile SQL as: not privileged, inheriting nothing, a member of nothing. */
const ROLE_CHECK = `select current_user = '${SEGMENT_ROLE}' and not r.rolsuper and not r.rolbypassrls
    and not r.rolcreaterole and not r.rolcreatedb and not r.rolinherit
    and not exists (select from pg_catalog.pg_auth_members m where m.member = r.oid) as safe
  from pg_catalog.pg_roles r where r.rolname = current_user`;

/**
 * PostgreSQL's barrier: segment queries run on their own small pool, logged in as
 * `herald_segments` (never SET ROLE on Herald's connections, which a query could undo). Herald
 * writes the scope row for the connection's backend through its own pool first and deletes it
 * after; the role can neither read nor write that table. Every query runs in a READ ONLY
 * transaction that is always rolled back (settings a query changes, even session-level ones, go
 * with it), then DISCARD ALL drops what a rollback keeps (advisory locks, temp tables, LISTEN).
 * A connection that saw any error is closed rather than reused. Session defaults (timeout,
 * work_mem, search_path, read-only) are startup options, which DISCARD ALL restores.
 */
export class PostgresSegmentRunner implements SegmentRunner {
  private readonly pool: pg.Pool;
  private readonly checked = new WeakSet<pg.PoolClient>();
  private readonly scales = new RelationScales();

  constructor(
    private readonly db: Db,
    private readonly limits: SegmentLimits,
    private readonly options: PostgresSegmentOptions,
  ) {
    const settings = {
      jit: 'off',
      statement_timeout: String(limits.timeoutMs),
      idle_in_transaction_session_timeout: String(limits.timeoutMs + 5000),
      lock_timeout: String(limits.timeoutMs),
      work_mem: SEGMENT_WORK_MEM,
      search_path: 'segment,pg_temp',
      TimeZone: 'UTC',
      default_transaction_read_only: 'on',
      application_name: 'herald_segments',
    };
    this.pool = new pg.Pool({
      Client: GuardedClient,
      connectionString: options.url,
      options: Object.entries(settings)
        .map(([name, value]) => `-c ${name}=${value}`)
        .join(' '),
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs,
      idleTimeoutMillis: 30_000,
      query_timeout: limits.timeoutMs + 2000,
    });
    this.pool.on('error', () => {});
  }

  private async connect(): Promise<pg.PoolClient> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      // Not the caller's fault: the role is missing, its password wrong, or the server down.
      this.options.log.error({ err: error }, 'segment queries: cannot connect as herald_segments');
      throw unavailable('segment queries are unavailable: the database refused the segment role; see docs/segments.md');
    }
    if (!this.checked.has(client)) {
      const check = await client.query<{ safe: boolean }>(ROLE_CHECK).catch(() => ({ rows: [] }));
      if (check.rows[0]?.safe !== true) {
        client.release(true);
        this.options.log.error('segment queries: the segment connection is not a plain herald_segments login');
        throw unavailable('segment queries are unavailable: the segment role is misconfigured; see docs/segments.md');
      }
      this.checked.add(client);
    }
    return client;
  }

  async run(statement: string, workspaceId: number) {
    const { sql: text, parameters } = segmentSql(statement, this.limits.maxResultBytes);
    const client = await this.connect();
    const pid = (client as unknown as { processID: number }).processID;
    let failed = false;
    try {
      await scopeSegmentBackend(this.db, pid, workspaceId);
      try {
        await client.query('begin read only');
        const scale = await this.scales.of(workspaceId, async (probe) => (await client.query(probe)).rows);
        await explainFirst(async (explain) => (await client.query(explain, parameters)).rows, text, this.limits, scale);
        const result = await client.query<WrappedResult>(text, parameters);
        return rowsOf(result.rows[0], this.limits);
      } catch (error) {
        failed = true;
        throw queryError(error, this.limits);
      } finally {
        if (!failed) await client.query('rollback').then(() => client.query('discard all'));
        await unscopeSegmentBackend(this.db, pid);
      }
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      client.release(failed);
    }
  }

  async close() {
    await this.pool.end();
  }
}
