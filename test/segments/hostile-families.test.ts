import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { FULL_ERROR_KEYS, keysOf } from '../support/load.js';
import { dryRun, OTHER_WORKSPACE_MARKERS, useSegmentWorkspaces } from '../support/segment-seed.js';

const TOO_EXPENSIVE =
  /^the query is estimated to be too expensive \(\d+ rows, cost \d+; at most 2000000 rows and cost 50000000\); narrow it down$/;
const TOO_LARGE = /^the result is larger than 1048576 bytes \(\d+\); select fewer or smaller columns$/;
const notAColumn = (ref: string) => `${ref}: "${ref.split('.')[1]}" is not a column of users, events or the query`;
const notAllowed = (name: string) => `function ${name} is not allowed`;
const COMPUTED = 'may only expand a column, a constant or a json path of one, not a computed value';

/** 500 fields of 1,000 characters: 4 KB of query, 500 KB per row, 5 MB for ten rows. */
const WIDE = `select distinct_id, format('${'%1$1000s'.repeat(500)}', distinct_id) as pad from users`;

/**
 * The probes of issue 14, by family, each in several spellings: [family, query, the refusal's reason].
 * Every one was tried as an attacker would, with the workspace's own API key.
 */
const FAMILIES: [string, string, string | RegExp][] = [
  // (expr).f means f(expr)
  [
    'attribute notation',
    "select distinct_id, ('herald.workspace_id'::text).current_setting as ws from users",
    'field selection (…).current_setting is not allowed',
  ],
  [
    'attribute notation',
    "select distinct_id, ('/etc/passwd'::text).pg_read_file as f from users",
    'field selection (…).pg_read_file is not allowed',
  ],
  [
    'attribute notation',
    'select distinct_id, (distinct_id).current_setting as s from users',
    'field selection (…).current_setting is not allowed',
  ],
  [
    'attribute notation',
    "select distinct_id, ((select 'role'::text)).current_setting as r from users",
    'field selection (…).current_setting is not allowed',
  ],
  [
    'attribute notation',
    'select distinct_id, (u).pg_typeof as t from users u',
    'field selection (…).pg_typeof is not allowed',
  ],
  [
    'attribute notation',
    'select distinct_id, (row(distinct_id)).f1 as f from users',
    'field selection (…).f1 is not allowed',
  ],
  [
    'attribute notation',
    "select distinct_id from users where ('x'::text).pg_ls_dir is null",
    'field selection (…).pg_ls_dir is not allowed',
  ],
  // alias.f means f(alias) when f is no column of alias
  ['alias functions', 'select u.distinct_id, u.current_setting from users u', notAColumn('u.current_setting')],
  [
    'alias functions',
    'select users.distinct_id, users.pg_column_size as s from users',
    notAColumn('users.pg_column_size'),
  ],
  ['alias functions', 'select distinct_id from users u where u.set_config is null', notAColumn('u.set_config')],
  ['alias functions', 'select e.distinct_id, e.pg_typeof as t from events e', notAColumn('e.pg_typeof')],
  [
    'alias functions',
    "select x.distinct_id, x.current_setting as s from (select distinct_id, 'a' as y from users) x",
    notAColumn('x.current_setting'),
  ],
  [
    'alias functions',
    'with w as (select distinct_id from users) select w.distinct_id, w.query_to_xml as q from w',
    notAColumn('w.query_to_xml'),
  ],
  [
    'alias functions',
    "select distinct_id, s.pg_ls_dir as d from users, lateral (select '.'::text as setting) s",
    notAColumn('s.pg_ls_dir'),
  ],
  [
    'alias functions',
    'select u.distinct_id, nope.distinct_id as n from users u',
    'nope.distinct_id: "nope" is not a relation of the query',
  ],
  // set_config, roles, GUCs
  [
    'settings and roles',
    "select distinct_id, set_config('herald.workspace_id', '1', true) as s from users",
    notAllowed('set_config'),
  ],
  [
    'settings and roles',
    "select distinct_id, set_config('role', session_user, true) as s from users",
    notAllowed('set_config'),
  ],
  [
    'settings and roles',
    "select distinct_id from users, (select pg_catalog.set_config('role', 'postgres', true)) s",
    notAllowed('pg_catalog.set_config'),
  ],
  [
    'settings and roles',
    `select distinct_id, "set_config"('role', 'postgres', true) as s from users`,
    notAllowed('set_config'),
  ],
  [
    'settings and roles',
    `select distinct_id, U&"set\\005fconfig"('role', 'postgres', true) as s from users`,
    notAllowed('set_config'),
  ],
  [
    'settings and roles',
    "select distinct_id, current_setting('is_superuser') as s from users",
    notAllowed('current_setting'),
  ],
  ['settings and roles', 'set role postgres', 'only a SELECT query is allowed, not SET'],
  ['settings and roles', 'set session authorization postgres', 'only a SELECT query is allowed, not SET'],
  ['settings and roles', 'reset all', 'only a SELECT query is allowed, not SET'],
  [
    'settings and roles',
    "select distinct_id from users where current_user = 'postgres'",
    'CURRENT_USER is not allowed',
  ],
  // functions that run SQL text
  [
    'SQL-text functions',
    "select distinct_id, query_to_xml('select * from public.workspace_keys', true, false, '') as x from users",
    notAllowed('query_to_xml'),
  ],
  [
    'SQL-text functions',
    `select distinct_id, "query_to_xml"('select 1', true, false, '') as x from users`,
    notAllowed('query_to_xml'),
  ],
  [
    'SQL-text functions',
    "select distinct_id, pg_catalog.query_to_xml('select 1', true, false, '') as x from users",
    notAllowed('pg_catalog.query_to_xml'),
  ],
  [
    'SQL-text functions',
    "select distinct_id, database_to_xml(true, false, '') as x from users",
    notAllowed('database_to_xml'),
  ],
  [
    'SQL-text functions',
    "select distinct_id, table_to_xml('public.users', true, false, '') as x from users",
    notAllowed('table_to_xml'),
  ],
  [
    'SQL-text functions',
    "select word as distinct_id from ts_stat('select to_tsvector(secret_ciphertext) from workspace_keys')",
    notAllowed('ts_stat'),
  ],
  [
    'SQL-text functions',
    "select * from dblink('dbname=postgres', 'select 1') as t(distinct_id text)",
    notAllowed('dblink'),
  ],
  [
    'SQL-text functions',
    "select distinct_id, cursor_to_xml('c', 1, true, false, '') as x from users",
    notAllowed('cursor_to_xml'),
  ],
  // the database host's files
  ['file functions', "select distinct_id, pg_read_file('/etc/passwd') as f from users", notAllowed('pg_read_file')],
  ['file functions', "select f as distinct_id from pg_ls_dir('/') f", notAllowed('pg_ls_dir')],
  [
    'file functions',
    "select distinct_id, pg_catalog.pg_read_binary_file('/etc/hostname') as f from users",
    notAllowed('pg_catalog.pg_read_binary_file'),
  ],
  ['file functions', "select distinct_id, pg_stat_file('/etc/passwd') as f from users", notAllowed('pg_stat_file')],
  ['file functions', "select distinct_id, lo_import('/etc/passwd') as f from users", notAllowed('lo_import')],
  [
    'file functions',
    "select distinct_id from users where pg_read_file('/etc/passwd', 0, 10) is not null",
    notAllowed('pg_read_file'),
  ],
  ['file functions', "copy (select 1) to program 'id'", 'only a SELECT query is allowed, not COPY'],
  ['file functions', 'select f as distinct_id from pg_ls_waldir() f', notAllowed('pg_ls_waldir')],
  // the catalogs
  [
    'catalog reads',
    'select rolname as distinct_id, rolpassword from pg_authid',
    'relation "pg_authid" is not available: a segment query reads only users and events',
  ],
  [
    'catalog reads',
    'select rolname as distinct_id, rolpassword from pg_catalog.pg_authid',
    'schema-qualified name pg_catalog.pg_authid is not allowed',
  ],
  [
    'catalog reads',
    'select rolname as distinct_id from "pg_authid"',
    'relation "pg_authid" is not available: a segment query reads only users and events',
  ],
  [
    'catalog reads',
    'select relname as distinct_id from pg_class',
    'relation "pg_class" is not available: a segment query reads only users and events',
  ],
  [
    'catalog reads',
    'select usename as distinct_id, passwd from pg_shadow',
    'relation "pg_shadow" is not available: a segment query reads only users and events',
  ],
  [
    'catalog reads',
    'select table_name as distinct_id from information_schema.tables',
    'schema-qualified name information_schema.tables is not allowed',
  ],
  [
    'catalog reads',
    'select query as distinct_id from pg_stat_activity',
    'relation "pg_stat_activity" is not available: a segment query reads only users and events',
  ],
  ['catalog reads', "select distinct_id, 'pg_authid'::regclass as r from users", 'type regclass is not allowed'],
  ['catalog reads', "select distinct_id, to_regclass('pg_authid') as r from users", notAllowed('to_regclass')],
  [
    'catalog reads',
    'select distinct_id, (select relname from pg_class limit 1) as r from users',
    'relation "pg_class" is not available: a segment query reads only users and events',
  ],
  ['catalog reads', 'select distinct_id, version() as v from users', notAllowed('version')],
  [
    'catalog reads',
    "select distinct_id, has_table_privilege('workspace_keys', 'select') as p from users",
    notAllowed('has_table_privilege'),
  ],
  // state that would outlive the request on a pooled connection
  [
    'session poisoning',
    "select distinct_id, set_config('default_transaction_read_only', 'on', false) as s from users",
    notAllowed('set_config'),
  ],
  [
    'session poisoning',
    "select distinct_id, set_config('application_name', 'poisoned', false) as s from users",
    notAllowed('set_config'),
  ],
  [
    'session poisoning',
    "select distinct_id, set_config('statement_timeout', '0', false) as s from users",
    notAllowed('set_config'),
  ],
  ['session poisoning', 'select distinct_id, pg_advisory_lock(42) as l from users', notAllowed('pg_advisory_lock')],
  [
    'session poisoning',
    'select distinct_id, pg_catalog.pg_try_advisory_lock(42) as l from users',
    notAllowed('pg_catalog.pg_try_advisory_lock'),
  ],
  [
    'session poisoning',
    'select distinct_id from users where pg_advisory_lock_shared(7) is null',
    notAllowed('pg_advisory_lock_shared'),
  ],
  [
    'session poisoning',
    "select distinct_id, pg_notify('herald_credentials', 'x') as n from users",
    notAllowed('pg_notify'),
  ],
  // answers too large to hold
  ['unbounded output', "select distinct_id, repeat('x', 30000000) as pad from users", notAllowed('repeat')],
  [
    'unbounded output',
    "select distinct_id, format('%30000000s', '') as pad from users",
    'format() widths are limited to 1000 and cannot be given as *',
  ],
  [
    'unbounded output',
    "select distinct_id, format('%*s', 30000000, '') as pad from users",
    'format() widths are limited to 1000 and cannot be given as *',
  ],
  ['unbounded output', "select distinct_id, lpad('', 30000000, 'x') as pad from users", notAllowed('lpad')],
  [
    'unbounded output',
    'select distinct_id, array_fill(1, array[30000000]) as pad from users',
    notAllowed('array_fill'),
  ],
  [
    'unbounded output',
    "select distinct_id, replace(replace(replace(distinct_id, 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa'), 'a', 'aaaaaaaaaa') as pad from users",
    'replace() cannot take the result of replace(): nested, they can build values of any size',
  ],
  ['unbounded output', WIDE, TOO_LARGE],
  [
    'unbounded output',
    'select distinct_id, (select jsonb_agg(jsonb_build_array(b.user_properties, c.user_properties, d.user_properties)) from users b, users c, users d) as blob from users',
    new RegExp(`${TOO_LARGE.source}|${TOO_EXPENSIVE.source}`),
  ],
  // work without end
  [
    'cross joins, windows, row generators',
    'select a.distinct_id from users a, users b, users c, users d, users e, users f order by random()',
    TOO_EXPENSIVE,
  ],
  [
    'cross joins, windows, row generators',
    'select a.distinct_id, count(*) over () as n from events a, events b, events c, events d, events e, events f, events g',
    TOO_EXPENSIVE,
  ],
  [
    'cross joins, windows, row generators',
    "select a.distinct_id from users a cross join users b cross join users c cross join users d cross join users e cross join users f where a.distinct_id || b.distinct_id || c.distinct_id || d.distinct_id || e.distinct_id || f.distinct_id = 'x'",
    TOO_EXPENSIVE,
  ],
  [
    'cross joins, windows, row generators',
    'select a.distinct_id, row_number() over (order by random()) as n from users a, users b, users c, users d, users e, users f',
    TOO_EXPENSIVE,
  ],
  [
    'cross joins, windows, row generators',
    'select distinct_id from users where (select count(*) from events a, events b, events c, events d, events e, events f, events g) > 0',
    TOO_EXPENSIVE,
  ],
  [
    'cross joins, windows, row generators',
    "select distinct_id from users, unnest(string_to_array(format('%1000s', ''), null)) g",
    `unnest() ${COMPUTED}`,
  ],
  [
    'cross joins, windows, row generators',
    "select distinct_id, unnest(string_to_array(format('%s%s', distinct_id, distinct_id), null)) as c from users",
    `unnest() ${COMPUTED}`,
  ],
  [
    'cross joins, windows, row generators',
    "select distinct_id from users, lateral unnest(string_to_array(repeat('x', 1000000), null)) g",
    `unnest() ${COMPUTED}`,
  ],
  [
    'cross joins, windows, row generators',
    'select distinct_id from users, jsonb_array_elements(jsonb_build_array(1, 2, 3)) g',
    `jsonb_array_elements() ${COMPUTED}`,
  ],
  [
    'cross joins, windows, row generators',
    'select distinct_id from users, generate_series(1, 100000000) g',
    notAllowed('generate_series'),
  ],
  [
    'cross joins, windows, row generators',
    "select distinct_id from users, string_to_table(repeat('x', 100), null) g",
    notAllowed('string_to_table'),
  ],
  [
    'cross joins, windows, row generators',
    "select distinct_id from users, regexp_split_to_table('a,b', ',') g",
    notAllowed('regexp_split_to_table'),
  ],
  [
    'cross joins, windows, row generators',
    'with recursive r(n) as (select 1 union all select n + 1 from r) select n::text as distinct_id from r',
    'WITH RECURSIVE is not allowed',
  ],
];

/** Nothing of the host, the catalogs or any credential may appear in an answer. */
const LEAK_MARKERS = ['root:x:', '/bin/', 'SCRAM-SHA-256', 'rolsuper', 'hak_', 'hst_', 'wss_', 'wsk_'];

const OTHER_ROWS = [
  { distinct_id: 'alice', plan: 'stolen' },
  { distinct_id: 'other-secret-1', plan: 'pro' },
  { distinct_id: 'other-secret-2', plan: 'pro' },
];

describe('hostile segment queries, by family of issue 14', () => {
  const t = useTestApp();
  const seed = useSegmentWorkspaces(t);

  it('tries every family in several spellings', () => {
    const families = new Map<string, number>();
    for (const [family] of FAMILIES) families.set(family, (families.get(family) ?? 0) + 1);
    expect([...families.keys()]).toHaveLength(9);
    for (const [family, count] of families) expect(count, family).toBeGreaterThanOrEqual(5);
  });

  it.each(FAMILIES)(
    '%s: %s → 400, while another workspace is served',
    async (_family, query, reason) => {
      const started = Date.now();
      const [hostile, other] = await Promise.all([
        dryRun(t(), seed().ws, query),
        dryRun(
          t(),
          seed().other,
          "select distinct_id, user_properties->>'plan' as plan from users order by distinct_id",
        ),
      ]);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(hostile.statusCode).toBe(400);
      const body = hostile.json();
      expect(keysOf(body)).toEqual(FULL_ERROR_KEYS);
      expect(body).toMatchObject({ code: 400, error_code: 'error', type: 'ValidationError' });
      expect(body.message).toBe(`invalid segment query: ${body.detail.query}`);
      if (typeof reason === 'string') expect(body.detail.query).toBe(reason);
      else expect(body.detail.query).toMatch(reason);
      for (const marker of [...OTHER_WORKSPACE_MARKERS, ...LEAK_MARKERS]) expect(hostile.body).not.toContain(marker);
      expect(hostile.body).not.toContain(seed().other.base.authorization!.slice(7));
      expect(other.statusCode).toBe(200);
      expect(other.json()).toEqual({ data: OTHER_ROWS });
    },
    30_000,
  );

  it('left nothing behind: writes work, no scope row, no advisory lock, the data as seeded', async () => {
    const write = await t().app.inject({
      method: 'POST',
      url: '/v1/user/written-after-the-probes/',
      headers: seed().ws.base,
      payload: { plan: 'x' },
    });
    expect(write.statusCode).toBe(201);
    const state = await sql<{ scopes: number; locks: number; events: number }>`
      select (select count(*)::int from segment_scopes
          where workspace_id in (${seed().ws.workspaceId}, ${seed().other.workspaceId})) as scopes,
        (select count(*)::int from pg_locks l left join pg_stat_activity a on a.pid = l.pid
          where l.locktype = 'advisory' and (a.application_name = 'herald_segments' or ${t().databaseKind === 'embedded'})) as locks,
        (select count(*)::int from events where workspace_id in (${seed().ws.workspaceId}, ${seed().other.workspaceId})) as events`.execute(
      t().db,
    );
    expect(state.rows[0]).toEqual({ scopes: 0, locks: 0, events: 10 });
    const after = await dryRun(t(), seed().ws, "select distinct_id from users where distinct_id = 'alice'");
    expect(after.json()).toEqual({ data: [{ distinct_id: 'alice' }] });
  });
});
