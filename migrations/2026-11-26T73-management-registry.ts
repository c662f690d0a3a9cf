import { sql, type Kysely } from 'kysely';

// Frozen in time: preference category translations, payload schemas (draft → versions) and the event registry.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('preference_category_translations')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('content', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'jsonb')
    .addPrimaryKeyConstraint('preference_category_translations_pk', ['workspace_id', 'locale'])
    .execute();

  // The row is the draft; live_version_no points at the committed version that is live.
  await db.schema
    .createTable('payload_schemas')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('json_schema', 'jsonb', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('live_version_no', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'jsonb')
    .addUniqueConstraint('payload_schemas_workspace_slug_unique', ['workspace_id', 'slug'])
    .execute();
  await db.schema
    .createTable('payload_schema_versions')
    .addColumn('schema_id', 'bigint', (c) => c.notNull().references('payload_schemas.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('json_schema', 'jsonb', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('commit_message', 'text')
    .addColumn('committed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('committed_by', 'jsonb')
    .addPrimaryKeyConstraint('payload_schema_versions_pk', ['schema_id', 'version_no'])
    .execute();

  // Events the workspace declares, each optionally linked to a payload schema (a version, or null: the live one).
  await db.schema
    .createTable('registered_events')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('schema_id', 'bigint', (c) => c.references('payload_schemas.id').onDelete('set null'))
    .addColumn('schema_version_no', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('registered_events_pk', ['workspace_id', 'name'])
    .addCheckConstraint(
      'registered_events_version_needs_schema',
      sql`schema_version_no is null or schema_id is not null`,
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'registered_events',
    'payload_schema_versions',
    'payload_schemas',
    'preference_category_translations',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
