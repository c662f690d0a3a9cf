import { sql, type Kysely } from 'kysely';

// Frozen in time: this migration only knows the schema as it was on its date.

/** An entry of a channel array that can be sent to: status active and not permanently disabled. */
const ACTIVE = sql.raw(
  `coalesce(e.entry->>'status', 'active') = 'active' and coalesce(e.entry->>'perma_status', 'active') <> 'disabled'`,
);
const entriesOf = (channel: string) =>
  sql.raw(`case jsonb_typeof(${channel}) when 'array' then ${channel} else '[]'::jsonb end`);

/**
 * What segment queries read: the `segment` schema with two views, `users` and `events`, each
 * showing only the rows of the workspace named by the transaction-local setting
 * `herald.workspace_id` (no setting, no rows), and the `herald_segment` role, which may read
 * these two views and nothing else Herald owns. The views are security barriers, so no
 * condition of the caller's query is evaluated on another workspace's rows.
 *
 * Roles belong to the whole cluster: the role is created once and shared by every Herald database
 * in it. Creating it needs CREATEROLE (or a superuser); without that, a DBA creates
 * `herald_segment` (NOLOGIN) and grants it to the database user before migrating.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // SET ROLE needs membership (with the SET option on PostgreSQL 16+) unless the user is a superuser.
  await sql`
    do $$
    declare
      can_set boolean;
    begin
      if not exists (select from pg_roles where rolname = 'herald_segment') then
        begin
          create role herald_segment nologin;
        exception when duplicate_object or unique_violation then
          null; -- another database of the cluster created it at the same moment
        end;
      end if;
      if (select rolsuper from pg_roles where rolname = current_user) then
        return;
      end if;
      if current_setting('server_version_num')::int >= 160000 then
        can_set := pg_has_role(current_user, 'herald_segment', 'SET');
      else
        can_set := pg_has_role(current_user, 'herald_segment', 'MEMBER');
      end if;
      if not can_set then
        execute format('grant herald_segment to %I', current_user);
      end if;
    exception when insufficient_privilege then
      raise exception 'segment queries run as the role herald_segment, which % may not create or join', current_user
        using hint = format('Give %I CREATEROLE, or have a superuser run: CREATE ROLE herald_segment NOLOGIN; GRANT herald_segment TO %I;', current_user, current_user);
    end
    $$`.execute(db);

  await sql`create schema segment`.execute(db);
  await sql`
    create view segment.users with (security_barrier = true) as
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
    where u.workspace_id = nullif(current_setting('herald.workspace_id', true), '')::integer`.execute(db);
  await sql`
    create view segment.events with (security_barrier = true) as
    select e.distinct_id, e.event, e.properties, e.created_at, e.tenant_id
    from events as e
    where e.workspace_id = nullif(current_setting('herald.workspace_id', true), '')::integer`.execute(db);
  await sql`grant usage on schema segment to herald_segment`.execute(db);
  await sql`grant select on segment.users, segment.events to herald_segment`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // The role stays: other Herald databases of the cluster may still use it.
  await sql`drop schema if exists segment cascade`.execute(db);
}
