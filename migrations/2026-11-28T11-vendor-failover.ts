import { type Kysely } from 'kysely';

// Frozen in time: vendor failover (docs/channels.md, "Failover"). A channel's active vendors are tried in order of
// `priority` (lower first, the default vendor before all), each for `fallback_after_seconds` of failing retries.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('vendors')
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('fallback_after_seconds', 'integer', (c) => c.notNull().defaultTo(60))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('vendors').dropColumn('priority').dropColumn('fallback_after_seconds').execute();
}
