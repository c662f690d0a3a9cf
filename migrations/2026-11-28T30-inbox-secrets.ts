import { sql, type Kysely } from 'kysely';

// Frozen in time: the inbox secret of the older inbox clients (docs/clients.md, "The older inbox clients"): one per
// workspace, sealed with the secret box; it signs each subscriber's distinct_id (HMAC-SHA256) on the customer's server.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('inbox_secrets')
    .addColumn('workspace_id', 'integer', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('inbox_secrets').execute();
}
