import { sql, type Kysely } from 'kysely';

// Frozen in time: the in-app inbox's public keys (browser-side, not secret) and signing keys (public half only).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ws_public_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('api_key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('allowed_domains', 'jsonb')
    .addColumn('is_secure_mode_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'jsonb')
    .addColumn('rotated_at', 'timestamptz')
    .addColumn('rotated_by', 'jsonb')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'jsonb')
    .execute();

  // Only the public key is kept: the private key is shown once at creation and never stored.
  await db.schema
    .createTable('ws_signing_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('uid', 'text', (c) => c.notNull().unique())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active', 'rolled', 'deleted')`))
    .addColumn('public_key_pem', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'jsonb')
    .addColumn('rolled_at', 'timestamptz')
    .addColumn('rolled_by', 'jsonb')
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('deleted_by', 'jsonb')
    .execute();
  // One active signing key per workspace, enforced by the database (a racing create gets a unique violation).
  await sql`create unique index ws_signing_keys_one_active on ws_signing_keys (workspace_id) where status = 'active'`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ws_signing_keys').ifExists().execute();
  await db.schema.dropTable('ws_public_keys').ifExists().execute();
}
