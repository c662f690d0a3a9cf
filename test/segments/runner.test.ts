import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runSegmentQuery } from '../../src/segments/runner.js';
import { useTestApp } from '../support/app.js';
import { dryRun, OTHER_WORKSPACE_MARKERS, useSegmentWorkspaces } from './seed.js';

/**
 * The database's own defences, tested without the guard in front: even a query the guard would
 * refuse runs read-only, as a role that sees only the workspace's two views.
 */
describe('segment runner', () => {
  const t = useTestApp({ SEGMENT_QUERY_TIMEOUT_MS: '100' });
  const seed = useSegmentWorkspaces(t);
  const run = (statement: string, workspaceId = seed().ws.workspaceId) =>
    runSegmentQuery(t().db, statement, { workspaceId, timeoutMs: 100 }).then(
      (rows) => ({ rows, error: undefined }),
      (error: { status: number; detail: { query: string } }) => ({ rows: undefined, error }),
    );

  it('runs read-only, as herald_segment, with a timeout, a work_mem bound and the segment schema only', async () => {
    const { rows } = await run(`select current_user as distinct_id,
      current_setting('transaction_read_only') as read_only, current_setting('statement_timeout') as timeout,
      current_setting('work_mem') as work_mem, current_setting('search_path') as search_path,
      current_setting('herald.workspace_id') as workspace, current_setting('TimeZone') as zone`);
    expect(rows).toEqual([
      {
        distinct_id: 'herald_segment',
        read_only: 'on',
        timeout: '100ms',
        work_mem: '4MB',
        search_path: 'segment, pg_temp',
        workspace: String(seed().ws.workspaceId),
        zone: 'UTC',
      },
    ]);
  });

  it('leaves the connection as it found it', async () => {
    await t().db.connection().execute(async (connection) => {
      await runSegmentQuery(connection, 'select distinct_id from users', { workspaceId: seed().ws.workspaceId, timeoutMs: 100 });
      const after = await sql<{ role: string; workspace: string | null; readOnly: string }>`
        select current_user as role, current_setting('herald.workspace_id', true) as workspace,
          current_setting('transaction_read_only') as "readOnly"`.execute(connection);
      expect(after.rows[0]!.role).not.toBe('herald_segment');
      expect(after.rows[0]!.workspace ?? '').toBe('');
      expect(after.rows[0]!.readOnly).toBe('off');
    });
  });

  it('cannot read Herald tables, not even the raw users and events', async () => {
    for (const statement of [
      'select distinct_id, properties from public.users',
      'select distinct_id from public.events',
      'select slug as distinct_id from public.workspaces',
      'select key as distinct_id, secret_ciphertext from public.workspace_keys',
      'select id as distinct_id from public.api_keys',
    ]) {
      const { error } = await run(statement);
      expect(error?.status, statement).toBe(400);
      expect(error?.detail.query, statement).toMatch(/permission denied/);
    }
  });

  it('cannot write: the transaction is read-only and the role has no grants', async () => {
    const { error } = await run("select nextval('public.users_id_seq')::text as distinct_id");
    expect(error?.status).toBe(400);
    expect(error?.detail.query).toMatch(/permission denied|read-only transaction/);
  });

  it('sees only the workspace it is given, and nothing without one', async () => {
    const mine = await run('select distinct_id from users order by distinct_id limit 100');
    expect(mine.rows).toHaveLength(10);
    expect(JSON.stringify(mine.rows)).not.toMatch(/other-secret/);
    const theirs = await run('select distinct_id from events', seed().other.workspaceId);
    expect(theirs.rows).toHaveLength(2);
    expect(theirs.rows).toEqual(expect.arrayContaining([{ distinct_id: 'other-secret-1' }, { distinct_id: 'alice' }]));
    const none = await sql<{ n: number }>`select count(*)::int as n from segment.users`.execute(t().db);
    expect(none.rows[0]!.n).toBe(0);
  });

  it('keeps another workspace out of reach of errors: the workspace filter runs first', async () => {
    // Only the other workspace holds a non-numeric age-less plan 'stolen'; a cast that fails on it would leak it.
    const { rows, error } = await run("select distinct_id from users where (user_properties->>'age')::int > 0 and user_properties->>'plan' <> 'x'");
    expect(error).toBeUndefined();
    expect(rows!.map((row) => row.distinct_id).sort()).toEqual(['alice', 'bob', 'carol', 'eve']);
    for (const marker of OTHER_WORKSPACE_MARKERS) expect(JSON.stringify(rows)).not.toContain(marker);
  });

  it('stops a query running past SEGMENT_QUERY_TIMEOUT_MS with a 400 on PostgreSQL (embedded: not enforced)', async () => {
    await t()
      .db.insertInto('events')
      .values(Array.from({ length: 60 }, (_, i) => ({ workspace_id: seed().ws.workspaceId, distinct_id: 'bulk', event: 'tick', insert_id: `tick-${i}`, created_at: new Date() })))
      .execute();
    // 68^5 rows on PostgreSQL (minutes of work); 68^3 on the embedded engine, which cannot be interrupted.
    const postgres = t().engine === 'postgres';
    const tables = Array.from({ length: postgres ? 5 : 3 }, (_, i) => `events e${i}`).join(', ');
    const response = await dryRun(t(), seed().ws, `select distinct_id from users where (select count(*) from ${tables}) > 0`);
    if (postgres) {
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({
        code: 400,
        error_code: 'error',
        type: 'ValidationError',
        message: 'invalid segment query: the query took too long (more than 100 ms); narrow it down',
        detail: { query: 'the query took too long (more than 100 ms); narrow it down' },
      });
    } else {
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toHaveLength(10);
    }
  });
});
