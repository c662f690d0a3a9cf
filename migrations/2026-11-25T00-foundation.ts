import { sql, type Kysely } from 'kysely';

// Frozen in time: this migration only knows the schema as it was on its date.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'integer', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('service_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('actor_name', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('revoked_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('masked_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'jsonb')
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('deleted_by', 'jsonb')
    .execute();
  await db.schema
    .createIndex('api_keys_workspace_idx')
    .on('api_keys')
    .columns(['workspace_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('workspace_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('secret_ciphertext', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('is_deleted', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('allowed_domains', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('created_by', 'jsonb')
    .addColumn('rotated_at', 'timestamptz')
    .addColumn('rotated_by', 'jsonb')
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('deleted_by', 'jsonb')
    .addUniqueConstraint('workspace_keys_name_unique', ['workspace_id', 'name'])
    .execute();
  // At most one default pair per workspace, enforced by the database.
  await sql`create unique index workspace_keys_one_default on workspace_keys (workspace_id) where is_default`.execute(
    db,
  );

  await db.schema
    .createTable('tenants')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('tenant_name', 'text', (c) => c.notNull())
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('properties', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('tenants_pk', ['workspace_id', 'tenant_id'])
    .execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('distinct_id', 'text', (c) => c.notNull())
    .addColumn('properties', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('channels', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('users_workspace_distinct_id_unique', ['workspace_id', 'distinct_id'])
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('distinct_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('properties', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('tenant_id', 'text')
    .addColumn('insert_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('events_workspace_insert_id_unique', ['workspace_id', 'insert_id'])
    .execute();
  await db.schema
    .createIndex('events_workspace_distinct_id_idx')
    .on('events')
    .columns(['workspace_id', 'distinct_id'])
    .execute();
  await db.schema
    .createIndex('events_workspace_event_idx')
    .on('events')
    .columns(['workspace_id', 'event', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['events', 'users', 'tenants', 'workspace_keys', 'api_keys', 'service_tokens', 'workspaces']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
