import { sql } from 'kysely';
import { ulid } from 'ulid';
import { createDatabase, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export interface PrivateDatabase {
  /** DATABASE_URL for the app: PostgreSQL with its own schema first on the search path; undefined on embedded storage. */
  url: string | undefined;
  drop(): Promise<void>;
}

/**
 * A database no other test file writes to, so a test may reason about every row of every table.
 * On PostgreSQL: a fresh, migrated database next to the shared one (dropped afterwards). Embedded
 * storage is already private: every file gets its own in-memory PGlite.
 */
export async function createPrivateDatabase(): Promise<PrivateDatabase> {
  const shared = process.env.DATABASE_URL;
  if (!shared) return { url: undefined, drop: async () => {} };
  const url = new URL(shared);
  const name = `${url.pathname.slice(1, 31)}_p_${ulid().toLowerCase()}`;
  const admin = createDatabase({ url: shared }).db;
  await sql`create database ${sql.id(name)}`.execute(admin);
  url.pathname = `/${name}`;
  const migrating = createDatabase({ url: url.toString() }).db;
  try {
    await migrateToLatest(migrating);
  } finally {
    await migrating.destroy();
  }
  return {
    url: url.toString(),
    async drop() {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
      await admin.destroy();
    },
  };
}

/** The tables of the current schema (migration bookkeeping excluded). */
export async function listTables(db: Db): Promise<string[]> {
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE' and table_name not like 'kysely_%'
    order by table_name`.execute(db);
  return rows.map((row) => row.table_name);
}

/**
 * One string that changes when any row of the given tables is inserted, updated or deleted:
 * per table its row count and an md5 of its rows' text, in one statement.
 */
export async function fingerprint(db: Db, tables: string[]): Promise<string> {
  const parts = tables.map(
    (table) => sql`(select count(*) || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') from ${sql.table(table)} t)`,
  );
  const { rows } = await sql<{ fingerprint: string }>`select concat_ws(',', ${sql.join(parts)}) as fingerprint`.execute(db);
  return rows[0]!.fingerprint;
}
