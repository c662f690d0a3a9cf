import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

/**
 * A counter of committed row changes in every table of the current schema, for tests that compare
 * fingerprints of a database after every request (test/support/fuzz.ts). A trigger on each table
 * bumps one row in `test_watch.changes` inside the writing transaction, so the counter moves when,
 * and only becomes visible when, a transaction that inserted, updated or deleted a row (or
 * truncated a table) commits. An unchanged counter therefore proves every row unchanged, and a
 * fingerprint need only be recomputed when it moved: the comparison itself stays as strict.
 *
 * The counter lives in its own schema, so that tests listing the tables of the current schema
 * (tablesWithScope) never see it. Install it only in a database no other test file writes to
 * (createPrivateDatabase): writes of other files would move it (harmless, only slower), and its
 * one row serialises concurrent writing transactions.
 */
export async function watchRowChanges(db: Db): Promise<() => Promise<number>> {
  await sql`create schema if not exists test_watch`.execute(db);
  await sql`create table if not exists test_watch.changes (id int primary key, n bigint not null)`.execute(db);
  await sql`insert into test_watch.changes (id, n) values (1, 0) on conflict (id) do nothing`.execute(db);
  await sql`
    create or replace function test_watch.bump() returns trigger language plpgsql as $$
    begin
      update test_watch.changes set n = n + 1 where id = 1;
      return null;
    end $$`.execute(db);
  // Row triggers, not statement ones: an UPDATE or DELETE that matches nothing must not move it.
  await sql`
    do $$
    declare t text;
    begin
      for t in select table_name from information_schema.tables
               where table_schema = current_schema() and table_type = 'BASE TABLE'
      loop
        execute format('create or replace trigger test_watch_rows after insert or update or delete on %I
                        for each row execute function test_watch.bump()', t);
        execute format('create or replace trigger test_watch_truncate after truncate on %I
                        for each statement execute function test_watch.bump()', t);
      end loop;
    end $$`.execute(db);
  return async () => {
    const { rows } = await sql<{ n: number }>`select n from test_watch.changes where id = 1`.execute(db);
    return Number(rows[0]!.n);
  };
}

/**
 * The number of rows in every table of every schema but the system's and the counter's own (the
 * queue's job tables included), by `schema.table`: a test that says "nothing written or queued"
 * compares two of these.
 */
export async function countAllRows(db: Db): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ table_schema: string; table_name: string }>`
    select table_schema, table_name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema', 'test_watch')
    order by 1, 2`.execute(db);
  const counts: Record<string, number> = {};
  for (const { table_schema, table_name } of tables) {
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from ${sql.id(table_schema, table_name)}`.execute(db);
    counts[`${table_schema}.${table_name}`] = rows[0]!.n;
  }
  return counts;
}
