import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { dryRun, OTHER_WORKSPACE_MARKERS, useSegmentWorkspaces } from '../support/segment-seed.js';

/** [what it tries, the query, a word the refusal's reason must contain]. */
const HOSTILE: [string, string, string][] = [
  // catalog reads
  ['pg_user', 'select usename as distinct_id from pg_user', 'relation "pg_user"'],
  ['qualified pg_user', 'select usename as distinct_id from pg_catalog.pg_user', 'schema-qualified'],
  ['pg_class', 'select relname as distinct_id from pg_class', 'relation "pg_class"'],
  ['pg_authid', 'select rolname as distinct_id, rolpassword from pg_authid', 'relation "pg_authid"'],
  [
    'pg_settings in a lateral join',
    'select u.distinct_id, s.setting from users u, lateral (select setting from pg_settings) s',
    'relation "pg_settings"',
  ],
  [
    'pg_stat_activity in EXISTS',
    'select distinct_id from users where exists (select 1 from pg_stat_activity)',
    'relation "pg_stat_activity"',
  ],
  ['information_schema', 'select table_name as distinct_id from information_schema.tables', 'schema-qualified'],
  ['regclass cast', "select distinct_id, 'pg_class'::regclass from users", 'type regclass'],
  [
    'regclass via CAST in WHERE',
    "select distinct_id from users where cast('pg_authid' as regclass) is not null",
    'type regclass',
  ],
  ['regproc typed literal', "select distinct_id, regproc 'now' from users", 'type regproc'],
  ['oid cast', 'select distinct_id, 1::oid from users', 'type oid'],
  [
    'qualified reg* cast',
    "select distinct_id, 'x'::pg_catalog.regnamespace from users",
    'type pg_catalog.regnamespace',
  ],
  ['to_regclass', "select distinct_id, to_regclass('pg_class') from users", 'function to_regclass'],
  ['pg_get_viewdef', "select distinct_id, pg_get_viewdef('segment.users') from users", 'function pg_get_viewdef'],
  [
    'has_table_privilege',
    "select distinct_id, has_table_privilege('users', 'select') from users",
    'function has_table_privilege',
  ],
  ['version()', 'select distinct_id, version() from users', 'function version'],
  ['current_user', 'select distinct_id, current_user from users', 'CURRENT_USER'],
  ['session_user', 'select distinct_id from users where session_user is not null', 'SESSION_USER'],
  ['current_schema', 'select distinct_id, current_schema from users', 'CURRENT_SCHEMA'],
  ['inet_server_addr', 'select distinct_id, inet_server_addr() from users', 'function inet_server_addr'],
  // other tables, other workspaces
  ['raw users table', 'select distinct_id, properties from public.users', 'schema-qualified'],
  ['quoted schema', 'select distinct_id from "public"."users"', 'schema-qualified'],
  ['catalog-qualified', 'select distinct_id from herald.public.users', 'schema-qualified'],
  ['the segment views by name', 'select distinct_id from segment.users', 'schema-qualified'],
  ['api keys', 'select id as distinct_id, key_hash from api_keys', 'relation "api_keys"'],
  ['workspace keys', 'select key as distinct_id, secret_ciphertext from workspace_keys', 'relation "workspace_keys"'],
  ['union with workspaces', 'select distinct_id from users union select slug from workspaces', 'relation "workspaces"'],
  [
    'join with raw events',
    'select u.distinct_id from users u join public.events e using (distinct_id)',
    'schema-qualified',
  ],
  [
    'raw users in IN',
    'select distinct_id from users where distinct_id in (select distinct_id from public.users)',
    'schema-qualified',
  ],
  ['raw users in a CTE', 'with x as (select * from public.users) select distinct_id from x', 'schema-qualified'],
  [
    'CTE name used out of its scope',
    'select distinct_id from users, (with pg_user as (select 1) select 1) s, pg_user',
    'relation "pg_user"',
  ],
  [
    'CTE forward reference',
    'with a as (select * from b), b as (select distinct_id from users) select * from a',
    'relation "b"',
  ],
  ['the migrations table', 'select name as distinct_id from kysely_migration', 'relation "kysely_migration"'],
  ['workspace_id column', 'select distinct_id, workspace_id from users', 'valid users columns'],
  ['qualified column', 'select public.users.distinct_id from users', 'schema-qualified'],
  [
    'switch workspace with set_config',
    "select distinct_id from users where set_config('herald.workspace_id', '1', true) is not null",
    'function set_config',
  ],
  [
    'read the workspace setting',
    "select distinct_id, current_setting('herald.workspace_id') from users",
    'function current_setting',
  ],
  [
    'reset the role',
    "select distinct_id from users, (select set_config('role', 'postgres', true)) s",
    'function set_config',
  ],
  ['system column ctid', 'select distinct_id, ctid from users', 'system column ctid'],
  ['system column xmin', 'select u.distinct_id from users u where u.xmin is not null', 'system column xmin'],
  ['system column tableoid', 'select distinct_id, tableoid from events', 'system column tableoid'],
  // functions
  ['pg_sleep', 'select distinct_id, pg_sleep(10) from users', 'function pg_sleep'],
  ['qualified pg_sleep', 'select distinct_id, pg_catalog.pg_sleep(10) from users', 'function pg_catalog.pg_sleep'],
  ['quoted pg_sleep', 'select distinct_id, "pg_sleep"(10) from users', 'function pg_sleep'],
  ['unicode-escaped pg_sleep', 'select distinct_id, U&"pg\\005fsleep"(10) from users', 'function pg_sleep'],
  ['pg_sleep in ORDER BY', 'select distinct_id from users order by pg_sleep(1)', 'function pg_sleep'],
  ['pg_sleep in a window', 'select distinct_id, count(pg_sleep(1)) over () from users', 'function pg_sleep'],
  ['pg_sleep inside coalesce', 'select distinct_id, coalesce(null, pg_sleep(1)) from users', 'function pg_sleep'],
  ['pg_read_file', "select distinct_id, pg_read_file('/etc/passwd') from users", 'function pg_read_file'],
  [
    'pg_read_file as a jsonb key',
    "select distinct_id from users where user_properties->>(pg_read_file('/etc/hostname')) is null",
    'function pg_read_file',
  ],
  ['pg_ls_dir in FROM', "select distinct_id from users, pg_ls_dir('.') f", 'function pg_ls_dir'],
  ['ROWS FROM', 'select distinct_id from users, rows from (pg_sleep(1)) f', 'function pg_sleep'],
  [
    'query_to_xml',
    "select distinct_id, query_to_xml('select * from public.users', true, true, '') from users",
    'function query_to_xml',
  ],
  ['dblink', "select * from dblink('dbname=postgres', 'select 1') as t(distinct_id text)", 'function dblink'],
  ['lo_import', "select distinct_id, lo_import('/etc/passwd') from users", 'function lo_import'],
  ['lo_get', 'select distinct_id, lo_get(1) from users', 'function lo_get'],
  ['pg_terminate_backend', 'select distinct_id, pg_terminate_backend(1) from users', 'function pg_terminate_backend'],
  ['pg_cancel_backend', 'select distinct_id from users where pg_cancel_backend(1)', 'function pg_cancel_backend'],
  ['nextval', "select distinct_id, nextval('users_id_seq') from users", 'function nextval'],
  ['pg_advisory_lock', 'select distinct_id, pg_advisory_lock(1) from users', 'function pg_advisory_lock'],
  ['pg_notify', "select distinct_id, pg_notify('c', 'x') from users", 'function pg_notify'],
  ['txid_current', 'select distinct_id, txid_current() from users', 'function txid_current'],
  ['generate_series', 'select distinct_id from users, generate_series(1, 100000000) g', 'function generate_series'],
  ['repeat', "select distinct_id, repeat('x', 100000000) from users", 'function repeat'],
  ['qualified operator', 'select distinct_id from users where 1 operator(pg_catalog.=) 1', 'OPERATOR(pg_catalog.=)'],
  ['XML', "select distinct_id, xmlparse(document '<x/>') from users", 'XML functions'],
  ['parameters', 'select distinct_id, $1 from users', 'query parameters'],
  [
    'pg_collation_for',
    'select distinct_id, collation for (distinct_id) from users',
    'function pg_catalog.pg_collation_for',
  ],
  // statements other than a plain read
  ['INSERT', "insert into users (distinct_id) values ('x')", 'not INSERT'],
  ['UPDATE', "update users set distinct_id = 'x'", 'not UPDATE'],
  ['DELETE', 'delete from users', 'not DELETE'],
  ['MERGE', 'merge into users u using events e on e.distinct_id = u.distinct_id when matched then delete', 'not MERGE'],
  ['DROP', 'drop table users', 'not DDL'],
  ['CREATE TABLE', 'create table evil (a int)', 'not DDL'],
  ['ALTER TABLE', 'alter table users add column evil int', 'not DDL'],
  ['TRUNCATE', 'truncate users', 'not DDL'],
  ['GRANT', 'grant select on users to public', 'not DDL'],
  ['COPY out', 'copy users to stdout', 'not COPY'],
  ['COPY to program', "copy (select 1) to program 'id'", 'not COPY'],
  ['SET ROLE', 'set role postgres', 'not SET'],
  ['RESET ROLE', 'reset role', 'not SET'],
  ['SHOW', 'show search_path', 'not SHOW'],
  ['BEGIN', 'begin', 'not transaction control'],
  ['COMMIT', 'commit', 'not transaction control'],
  ['SELECT INTO', 'select distinct_id into evil from users', 'SELECT … INTO'],
  ['FOR UPDATE', 'select distinct_id from users for update', 'FOR UPDATE'],
  [
    'FOR SHARE in a subquery',
    'select distinct_id from (select distinct_id from users for share) s',
    'FOR UPDATE/FOR SHARE',
  ],
  ['LOCK', 'lock table users', 'not LOCK'],
  ['CALL', 'call evil()', 'not CALL'],
  ['DO', 'do $$ begin perform pg_sleep(1); end $$', 'not DO'],
  ['EXPLAIN ANALYZE', 'explain analyze select distinct_id from users', 'not EXPLAIN'],
  ['EXPLAIN', 'explain select distinct_id from users', 'not EXPLAIN'],
  ['PREPARE', 'prepare p as select distinct_id from users', 'not PREPARE'],
  // several statements, comment and quoting tricks
  ['a second statement', 'select distinct_id from users; delete from users', 'single statement'],
  ['a second read', 'select distinct_id from users; select usename from pg_user', 'single statement'],
  ['line comment ended by a newline', 'select distinct_id from users --\n; drop table users', 'single statement'],
  [
    'block comments around the semicolon',
    'select distinct_id from users /* x */; /* y */ drop table users',
    'single statement',
  ],
  ['nested block comment', 'select distinct_id from users /* /* */ x */; drop table users', 'single statement'],
  [
    'closing a string early',
    "select distinct_id from users where distinct_id = ''; drop table users; --'",
    'single statement',
  ],
  ['dollar quoting', "select distinct_id from users where distinct_id = $$'$$; drop table users", 'single statement'],
  [
    'E-string escape',
    "select distinct_id from users where distinct_id = E'\\''; drop table users; --'",
    'single statement',
  ],
  ['breaking out of the wrapper', 'select distinct_id from users) as q; drop table users; select (1', 'syntax error'],
  ['joining the wrapper', 'select distinct_id from users) q, pg_user p where (true', 'syntax error'],
  ['unterminated comment', "select distinct_id from users where distinct_id = 'a' /*", 'unterminated /* comment'],
  ['quoted catalog', 'select usename as distinct_id from "pg_catalog"."pg_user"', 'schema-qualified'],
  // data-changing CTEs, recursion
  ['DELETE in a CTE', 'with d as (delete from users returning distinct_id) select distinct_id from d', 'data-changing'],
  [
    'INSERT in a CTE',
    "with i as (insert into events (distinct_id) values ('x') returning distinct_id) select * from i",
    'data-changing',
  ],
  [
    'UPDATE in a CTE',
    "with u as (update users set distinct_id = 'x' returning *) select distinct_id from u",
    'data-changing',
  ],
  [
    'DML in a nested CTE',
    'with a as (with b as (delete from users returning *) select * from b) select distinct_id from a',
    'data-changing',
  ],
  [
    'DML CTE in a subquery',
    'select distinct_id from (with d as (delete from users returning *) select * from d) s',
    'data-changing',
  ],
  [
    'WITH RECURSIVE',
    'with recursive r(n) as (select 1 union all select n + 1 from r) select n::text as distinct_id from r',
    'WITH RECURSIVE',
  ],
  // UNION with catalogs
  ['UNION pg_user', 'select distinct_id from users union select usename from pg_user', 'relation "pg_user"'],
  [
    'UNION ALL pg_shadow',
    'select distinct_id from users union all select passwd from pg_shadow',
    'relation "pg_shadow"',
  ],
  [
    'INTERSECT pg_authid',
    'select distinct_id from users intersect select rolname from pg_authid',
    'relation "pg_authid"',
  ],
  ['EXCEPT pg_class', "select distinct_id from users except select 'x' from pg_class", 'relation "pg_class"'],
  [
    'UNION information_schema',
    'select distinct_id from users union select table_name::text from information_schema.tables',
    'schema-qualified',
  ],
  // long and deep
  [
    'longer than the limit',
    `select distinct_id from users where ${'distinct_id = $$x$$ or '.repeat(500)} true`,
    'longer than 10000',
  ],
  [
    'deeply nested subqueries',
    `select distinct_id from ${'(select * from '.repeat(300)}users${') s'.repeat(300)}`,
    'nested too deeply',
  ],
  ['deep arithmetic', `select distinct_id, ${'1+'.repeat(2000)}1 from users`, 'nested too deeply'],
  [
    'deep function calls',
    `select ${'lower('.repeat(1000)}distinct_id${')'.repeat(1000)} as distinct_id from users`,
    'nested too deeply',
  ],
  // not a segment
  ['no distinct_id column', 'select count(*) from users', 'distinct_id column'],
  ['no distinct_id behind a star', 'select * from (select 1 as x) s', 'distinct_id column'],
  [
    'two distinct_id columns',
    'select u.distinct_id, e.distinct_id from users u join events e on true',
    'more than one distinct_id',
  ],
  ['empty', '', 'empty'],
  ['only a comment', '-- nothing here', 'empty'],
  ['only a semicolon', ';', 'empty'],
];

describe('POST /v1/subscriber_list/~/dry_run/ refuses hostile queries', () => {
  const t = useTestApp();
  const seed = useSegmentWorkspaces(t);

  it('holds at least 60 hostile cases', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(60);
  });

  it.each(HOSTILE)('refuses %s with 400', async (_name, query, reason) => {
    const response = await dryRun(t(), seed().ws, query);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ code: 400, error_code: 'error', type: 'ValidationError' });
    expect(body.detail.query).toContain(reason);
    expect(body.message).toContain(reason);
    for (const marker of OTHER_WORKSPACE_MARKERS) expect(response.body).not.toContain(marker);
  });

  it('changed nothing: rows, tables and the sequence are as seeded', async () => {
    const db = t().db;
    const users = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', 'in', [seed().ws.workspaceId, seed().other.workspaceId])
      .executeTakeFirstOrThrow();
    expect(users.n).toBe(20);
    const events = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspace_id', 'in', [seed().ws.workspaceId, seed().other.workspaceId])
      .executeTakeFirstOrThrow();
    expect(events.n).toBe(10);
    const evil = await sql<{ name: string | null }>`select to_regclass('evil')::text as name`.execute(db);
    expect(evil.rows[0]!.name).toBeNull();
  });
});
