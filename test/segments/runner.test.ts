import { sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { segmentDatabaseUrl } from '../../src/segments/connection.js';
import { useTestApp } from '../support/app.js';
import { dryRun, OTHER_WORKSPACE_MARKERS, useSegmentWorkspaces } from '../support/segment-seed.js';

/**
 * The database's own barrier, with the guard skipped: the runner is handed what the guard would
 * refuse, and the database must refuse it (or confine it) by itself.
 */
describe('segment runner without the guard', () => {
  const t = useTestApp({ SEGMENT_QUERY_TIMEOUT_MS: '300', SEGMENT_RESULT_MAX_BYTES: '65536' });
  const seed = useSegmentWorkspaces(t);
  const run = (statement: string, workspaceId = seed().ws.workspaceId) =>
    t()
      .app.segmentRunner.run(statement, workspaceId)
      .then(
        (rows) => ({ rows, error: undefined }),
        (error: { status: number; detail: { query: string } }) => ({ rows: undefined, error }),
      );
  const refused = async (statement: string, reason: RegExp) => {
    const { rows, error } = await run(statement);
    expect(rows, statement).toBeUndefined();
    expect(error?.status, statement).toBe(400);
    expect(error?.detail.query, statement).toMatch(reason);
  };

  it('runs read-only as herald_segments, over the segment schema, in UTC', async () => {
    const { rows } = await run(`select current_user as distinct_id,
      current_setting('transaction_read_only') as read_only, current_setting('work_mem') as work_mem,
      current_setting('search_path') as search_path, current_setting('TimeZone') as zone`);
    expect(rows).toEqual([
      {
        distinct_id: 'herald_segments',
        read_only: 'on',
        work_mem: '4MB',
        search_path: expect.stringMatching(/^segment, ?pg_temp$/),
        zone: 'UTC',
      },
    ]);
  });

  it('on PostgreSQL, logs in as herald_segments on its own connection (session_user too), not SET ROLE', async () => {
    const { rows } = await run('select session_user::text as distinct_id');
    expect(rows![0]!.distinct_id).toBe(t().databaseKind === 'postgres' ? 'herald_segments' : 'postgres');
  });

  it('cannot change a setting or its role: EXECUTE on set_config is revoked', async () => {
    for (const statement of [
      "select set_config('role', 'postgres', true) as distinct_id",
      "select set_config('role', session_user, true) as distinct_id",
      "select set_config('session_authorization', 'postgres', false) as distinct_id",
      "select set_config('default_transaction_read_only', 'off', false) as distinct_id",
      "select set_config('application_name', 'poisoned', false) as distinct_id",
      "select set_config('herald.workspace_id', '1', true) as distinct_id",
      "select distinct_id from users, (select set_config('search_path', 'public', true)) s",
    ]) {
      await refused(statement, /permission denied for function set_config/);
    }
  });

  it('cannot run SQL text: query_to_xml and its family, ts_stat', async () => {
    await refused(
      "select query_to_xml('select * from public.workspace_keys', true, false, '')::text as distinct_id",
      /permission denied for function query_to_xml/,
    );
    await refused(
      "select query_to_xml_and_xmlschema('select 1', true, false, '')::text as distinct_id",
      /permission denied for function query_to_xml_and_xmlschema/,
    );
    await refused("select database_to_xml(true, false, '')::text as distinct_id", /permission denied for function/);
    await refused("select word as distinct_id from ts_stat('select 1')", /permission denied for function ts_stat/);
  });

  it('cannot read files or list directories of the host', async () => {
    await refused("select pg_read_file('/etc/passwd') as distinct_id", /permission denied for function pg_read_file/);
    await refused("select f as distinct_id from pg_ls_dir('.') f", /permission denied for function pg_ls_dir/);
    await refused("select pg_stat_file('/etc/passwd')::text as distinct_id", /permission denied for function/);
    await refused(
      "select encode(pg_read_binary_file('/etc/hostname'), 'escape') as distinct_id",
      /permission denied for function/,
    );
  });

  it('cannot hold locks, notify, sleep or signal other backends', async () => {
    await refused('select pg_advisory_lock(1)::text as distinct_id', /permission denied for function pg_advisory_lock/);
    await refused('select pg_try_advisory_lock(1)::text as distinct_id', /permission denied for function/);
    await refused("select pg_notify('herald_credentials', 'x')::text as distinct_id", /permission denied for function/);
    await refused('select pg_sleep(0)::text as distinct_id', /permission denied for function pg_sleep/);
    await refused('select pg_terminate_backend(1)::text as distinct_id', /permission denied for function/);
    await refused('select txid_current()::text as distinct_id', /permission denied for function txid_current/);
  });

  it("cannot read Herald's tables, the scope table, or the catalog's secrets", async () => {
    for (const statement of [
      'select distinct_id, properties from public.users',
      'select distinct_id from public.events',
      'select slug as distinct_id from public.workspaces',
      'select key as distinct_id, secret_ciphertext from public.workspace_keys',
      'select id as distinct_id from public.api_keys',
      'select backend_pid::text as distinct_id from public.segment_scopes',
      'select rolname::text as distinct_id, rolpassword from pg_catalog.pg_authid',
    ]) {
      await refused(statement, /permission denied/);
    }
  });

  it('cannot write anything, its own scope included', async () => {
    await refused(
      'select distinct_id from users where exists (select 1 from public.segment_scopes for update)',
      /permission denied|read-only/,
    );
    await refused("select nextval('public.users_id_seq')::text as distinct_id", /permission denied/);
  });

  it('sees only the workspace it is given, even when two run at once', async () => {
    const [mine, theirs] = await Promise.all([
      run('select distinct_id from users order by distinct_id limit 100'),
      run('select distinct_id from events', seed().other.workspaceId),
    ]);
    expect(mine.rows).toHaveLength(10);
    for (const marker of OTHER_WORKSPACE_MARKERS) expect(JSON.stringify(mine.rows)).not.toContain(marker);
    expect(theirs.rows).toEqual(expect.arrayContaining([{ distinct_id: 'other-secret-1' }, { distinct_id: 'alice' }]));
    expect(theirs.rows).toHaveLength(2);
  });

  it('leaves no scope behind, and the views show nothing to anyone without one', async () => {
    await run('select distinct_id from users');
    // Other files may be running dry runs of their own workspaces meanwhile (PostgreSQL is shared).
    const scopes = await sql<{ n: number }>`select count(*)::int as n from segment_scopes
      where workspace_id in (${seed().ws.workspaceId}, ${seed().other.workspaceId})`.execute(t().db);
    expect(scopes.rows[0]!.n).toBe(0);
    const none = await sql<{ n: number }>`select count(*)::int as n from segment.users`.execute(t().db);
    expect(none.rows[0]!.n).toBe(0);
  });

  it('keeps another workspace out of reach of errors: the workspace filter runs first', async () => {
    // Only the other workspace holds a non-numeric plan 'stolen' with an age; a cast failing on it would leak it.
    const { rows, error } = await run(
      "select distinct_id from users where (user_properties->>'age')::int > 0 and user_properties->>'plan' <> 'x'",
    );
    expect(error).toBeUndefined();
    expect(rows!.map((row) => row.distinct_id).sort()).toEqual(['alice', 'bob', 'carol', 'eve']);
  });

  it('refuses a result larger than SEGMENT_RESULT_MAX_BYTES, summed by the database before it is sent', async () => {
    await refused(
      "select distinct_id, repeat('x', 20000) as pad from users",
      /the result is larger than 65536 bytes \(\d+\); select fewer or smaller columns/,
    );
    const { rows } = await run("select distinct_id, repeat('x', 1000) as pad from users order by 1");
    expect(rows).toHaveLength(10);
  });

  it('refuses by the plan estimate what would take too long, before it runs (both engines)', async () => {
    await refused(
      'select a.distinct_id from users a, users b, users c, users d, users e, users f order by random()',
      /estimated to be too expensive \(\d+ rows, cost \d+; at most 2000000 rows and cost 50000000\)/,
    );
    await refused(
      'select a.distinct_id, count(*) over () from events a, events b, events c, events d, events e, events f, events g',
      /estimated to be too expensive/,
    );
    // Few rows out, all the work inside: a cross join whose filter keeps nothing.
    await refused(
      "select a.distinct_id from users a, users b, users c, users d, users e, users f where a.distinct_id || b.distinct_id || c.distinct_id || d.distinct_id || e.distinct_id || f.distinct_id = 'x'",
      /estimated to be too expensive/,
    );
  });

  it.runIf(!!process.env.DATABASE_URL)(
    'on PostgreSQL, ends a query running past SEGMENT_QUERY_TIMEOUT_MS with a 400',
    async () => {
      await refused(
        'select distinct_id, md5(repeat(distinct_id, 20000000)) as h from users',
        /the query took too long \(more than 300 ms\); narrow it down/,
      );
      // The connection that was cut off is not reused in a bad state.
      const { rows } = await run("select distinct_id from users where distinct_id = 'alice'");
      expect(rows).toEqual([{ distinct_id: 'alice' }]);
    },
  );

  it('leaves every Herald connection writable and the segment connections as they started', async () => {
    await run('select distinct_id from users');
    const response = await t().app.inject({
      method: 'POST',
      url: '/v1/user/after-dry-run/',
      headers: seed().ws.base,
      payload: { plan: 'x' },
    });
    expect(response.statusCode).toBe(201);
    const { rows } = await run(`select current_setting('application_name') as distinct_id,
      current_setting('default_transaction_read_only') as read_only`);
    if (t().databaseKind === 'postgres') expect(rows).toEqual([{ distinct_id: 'herald_segments', read_only: 'on' }]);
    const herald = await sql<{ role: string; readOnly: string }>`
      select current_user as role, current_setting('transaction_read_only') as "readOnly"`.execute(t().db);
    expect(herald.rows[0]).toEqual({ role: 'postgres', readOnly: 'off' });
  });

  it.runIf(!!process.env.DATABASE_URL)(
    'on PostgreSQL, the role logged in directly can become no other role and sees no workspace',
    async () => {
      const client = new pg.Client({ connectionString: segmentDatabaseUrl(t().config) });
      await client.connect();
      try {
        const attempt = (text: string) =>
          client.query(text).then(
            () => 'ok',
            (error: Error) => error.message,
          );
        expect(await attempt('set role postgres')).toMatch(/permission denied to set role "postgres"/);
        expect(await attempt('set session authorization postgres')).toMatch(/permission denied/);
        expect((await client.query('select count(*)::int as n from segment.users')).rows[0].n).toBe(0);
        expect(await attempt('insert into public.segment_scopes values (pg_backend_pid(), 1)')).toMatch(
          /permission denied/,
        );
        const role = await client.query(
          `select rolsuper, rolinherit, rolcreaterole, rolbypassrls,
             (select count(*)::int from pg_auth_members m where m.member = r.oid) as memberships
           from pg_roles r where rolname = current_user`,
        );
        expect(role.rows[0]).toEqual({
          rolsuper: false,
          rolinherit: false,
          rolcreaterole: false,
          rolbypassrls: false,
          memberships: 0,
        });
      } finally {
        await client.end();
      }
    },
  );

  it('a dry run through the route answers the same refusal as the runner', async () => {
    const response = await dryRun(t(), seed().ws, 'select distinct_id, pg_sleep(0) from users');
    expect(response.statusCode).toBe(400);
    expect(response.json().detail.query).toBe('function pg_sleep is not allowed');
  });
});
