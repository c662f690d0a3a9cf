import { sql, type Kysely, type RawBuilder } from 'kysely';

// Frozen in time: this migration only knows the schema as it was on its date.

/** An entry of a channel array that can be sent to: status active and not permanently disabled. */
const ACTIVE = sql.raw(
  `coalesce(e.entry->>'status', 'active') = 'active' and coalesce(e.entry->>'perma_status', 'active') <> 'disabled'`,
);
const entriesOf = (channel: string) =>
  sql.raw(`case jsonb_typeof(${channel}) when 'array' then ${channel} else '[]'::jsonb end`);

/** The workspace of the backend running the query: a row only Herald writes, keyed by something no query can change. */
const SCOPE = sql.raw(
  '(select s.workspace_id from public.segment_scopes as s where s.backend_pid = pg_catalog.pg_backend_pid())',
);

/**
 * Functions a segment query must never reach even if the parser guard misses a spelling: they run
 * SQL text, change settings or roles, hold session locks, signal or sleep, assign transaction ids,
 * touch sequences, large objects or files. EXECUTE on them is revoked from PUBLIC in Herald's
 * database (function privileges are per database) when the migrating user may do so (a superuser:
 * they belong to the bootstrap superuser); otherwise docs/segments.md gives the DBA the same list.
 */
export const REVOKED_FUNCTIONS = [
  'set_config',
  'query_to_xml',
  'query_to_xmlschema',
  'query_to_xml_and_xmlschema',
  'cursor_to_xml',
  'cursor_to_xmlschema',
  'table_to_xml',
  'table_to_xmlschema',
  'table_to_xml_and_xmlschema',
  'schema_to_xml',
  'schema_to_xmlschema',
  'schema_to_xml_and_xmlschema',
  'database_to_xml',
  'database_to_xmlschema',
  'database_to_xml_and_xmlschema',
  'ts_stat',
  'pg_advisory_lock',
  'pg_advisory_lock_shared',
  'pg_try_advisory_lock',
  'pg_try_advisory_lock_shared',
  'pg_advisory_unlock',
  'pg_advisory_unlock_shared',
  'pg_advisory_unlock_all',
  'pg_notify',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'pg_cancel_backend',
  'pg_terminate_backend',
  'txid_current',
  'pg_current_xact_id',
  'pg_export_snapshot',
  'nextval',
  'setval',
  'currval',
  'lastval',
  'lo_creat',
  'lo_create',
  'lo_open',
  'lo_import',
  'lo_export',
  'lo_get',
  'lo_put',
  'lo_from_bytea',
  'lo_unlink',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_stat_file',
  'pg_ls_dir',
  'pg_ls_logdir',
  'pg_ls_waldir',
  'pg_ls_tmpdir',
  'pg_ls_archive_statusdir',
  'pg_reload_conf',
  'pg_logical_emit_message',
];

/**
 * Migration 40's definitions with another scope (same columns, so create or replace keeps every
 * grant and dependency).
 */
async function createViews(db: Kysely<any>, scope: RawBuilder<unknown>) {
  await sql`
    create or replace view segment.users with (security_barrier = true) as
    select
      u.distinct_id,
      u.created_at,
      u.updated_at,
      coalesce(u.properties->>'$preferred_language', nullif(split_part(u.properties->>'$locale', '_', 1), '')) as language,
      u.properties->>'$locale' as locale,
      u.properties->>'$timezone' as timezone,
      u.properties as user_properties,
      array(
        select substr(c.key, 2)
        from jsonb_each(u.channels) as c(key, value)
        where exists (select from jsonb_array_elements(${entriesOf('c.value')}) as e(entry) where ${ACTIVE})
        order by c.key
      ) as active_channels,
      array(
        select e.entry->>'value'
        from jsonb_array_elements(${entriesOf(`u.channels->'$email'`)}) with ordinality as e(entry, n)
        where ${ACTIVE}
        order by e.n
      ) as active_emails,
      array(
        select p.value
        from (
          select e.entry->>'value' as value, min(c.k * 1000000 + e.n) as first_seen
          from unnest(array['$sms', '$whatsapp']) with ordinality as c(key, k)
          cross join lateral jsonb_array_elements(${entriesOf('u.channels->c.key')}) with ordinality as e(entry, n)
          where ${ACTIVE}
          group by 1
        ) as p
        order by p.first_seen
      ) as active_phone_numbers
    from users as u
    where u.workspace_id = ${scope}`.execute(db);
  await sql`
    create or replace view segment.events with (security_barrier = true) as
    select e.distinct_id, e.event, e.properties, e.created_at, e.tenant_id
    from events as e
    where e.workspace_id = ${scope}`.execute(db);
}

/**
 * The segment sandbox: segment queries run as `herald_segments`, a LOGIN role of their own (on
 * PostgreSQL, on its own connections; on the embedded engine, entered with SET LOCAL ROLE). It
 * inherits nothing and is a member of nothing, so it cannot become another role; it may read the
 * two segment views and nothing else of Herald's. The views are scoped by a row of
 * `segment_scopes` keyed by the backend's process id: Herald writes it before the query and
 * removes it after, and the role cannot write (or read) that table, so no query can pick another
 * workspace. The old GUC scope (`herald.workspace_id`) could be changed by set_config.
 *
 * Roles belong to the whole cluster: the role is created once and shared by every Herald database
 * in it. Creating it needs CREATEROLE (or a superuser); without that, a DBA runs the statements of
 * docs/segments.md before migrating.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    do $$
    begin
      if not exists (select from pg_roles where rolname = 'herald_segments') then
        begin
          create role herald_segments login noinherit nosuperuser nocreatedb nocreaterole noreplication nobypassrls;
        exception
          when duplicate_object or unique_violation then
            null; -- another database of the cluster created it at the same moment
          when insufficient_privilege then
            raise exception 'segment queries run as the role herald_segments, which % may not create', current_user
              using hint = 'Have a superuser run: CREATE ROLE herald_segments LOGIN NOINHERIT; (see docs/segments.md)';
        end;
      end if;
      if exists (select from pg_roles where rolname = 'herald_segments' and (rolsuper or rolbypassrls or rolcreaterole or rolinherit))
        or exists (select from pg_auth_members m join pg_roles r on r.oid = m.member where r.rolname = 'herald_segments') then
        raise exception 'the role herald_segments must be NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOINHERIT and a member of no role';
      end if;
    end
    $$`.execute(db);

  await sql`
    create table segment_scopes (
      backend_pid integer primary key,
      workspace_id integer not null references workspaces (id) on delete cascade
    )`.execute(db);
  await sql`revoke all on segment_scopes from public`.execute(db);

  await createViews(db, SCOPE);
  await sql`grant usage on schema segment to herald_segments`.execute(db);
  await sql`grant select on segment.users, segment.events to herald_segments`.execute(db);
  await sql`
    do $$
    begin
      if exists (select from pg_roles where rolname = 'herald_segment') then
        revoke all on segment.users, segment.events from herald_segment;
        revoke all on schema segment from herald_segment;
      end if;
    end
    $$`.execute(db);

  // Herald's own functions (trigger functions today) are nobody else's business.
  await sql`revoke execute on all functions in schema public from public`.execute(db);
  await sql`alter default privileges revoke execute on functions from public`.execute(db);

  await sql`
    do $$
    declare
      f regprocedure;
    begin
      if not (select rolsuper from pg_roles where rolname = current_user) then
        raise notice 'not a superuser: EXECUTE on session and SQL-running functions stays with PUBLIC; see docs/segments.md';
        return;
      end if;
      for f in
        select p.oid::regprocedure from pg_proc p
        where p.pronamespace = 'pg_catalog'::regnamespace and p.proname = any (${sql.raw(`array[${REVOKED_FUNCTIONS.map((name) => `'${name}'`).join(', ')}]`)})
      loop
        execute format('revoke execute on function %s from public', f);
      end loop;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await createViews(db, sql.raw("nullif(current_setting('herald.workspace_id', true), '')::integer"));
  await sql`drop table if exists segment_scopes`.execute(db);
}
