import { sql, type Kysely } from 'kysely';

// Frozen in time: settings an installation keeps about itself (docs/operations.md). First: the fingerprint of
// the SECRET_KEY its secrets are sealed with, so a start with another key is refused instead of failing silently.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('herald_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`clock_timestamp()`))
    .execute();
}
