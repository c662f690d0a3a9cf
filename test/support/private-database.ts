import { sql } from 'kysely';
import { ulid } from 'ulid';
import { createDatabase } from '../../src/db/database.js';
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
