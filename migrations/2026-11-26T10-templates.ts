import { sql, type Kysely } from 'kysely';

// Frozen in time: templates, their draft variants and their committed versions.
export async function up(db: Kysely<any>): Promise<void> {
  // The template row holds the draft metadata; template_variants the draft variants; template_versions the history.
  await db.schema
    .createTable('templates')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('tags', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('enabled_channels', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('mock_data', 'jsonb')
    .addColumn('live_version_no', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'jsonb')
    .addColumn('last_triggered_at', 'timestamptz')
    .addUniqueConstraint('templates_workspace_slug_unique', ['workspace_id', 'slug'])
    .execute();

  await db.schema
    .createTable('template_variants')
    .addColumn('template_id', 'bigint', (c) => c.notNull().references('templates.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('variant_id', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text')
    .addColumn('conditions', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('content', 'jsonb', (c) => c.notNull())
    .addColumn('seq_no', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('needs_vendor_approval', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('template_variants_pk', ['template_id', 'channel', 'variant_id'])
    .execute();

  // A committed version is one row: the variants snapshot as a JSON array, so rendering reads one row.
  await db.schema
    .createTable('template_versions')
    .addColumn('template_id', 'bigint', (c) => c.notNull().references('templates.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull().check(sql`version_no > 0`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('tags', 'jsonb', (c) => c.notNull())
    .addColumn('enabled_channels', 'jsonb', (c) => c.notNull())
    .addColumn('variants', 'jsonb', (c) => c.notNull())
    .addColumn('mock_data', 'jsonb')
    .addColumn('commit_message', 'text')
    .addColumn('committed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('committed_by', 'jsonb')
    .addPrimaryKeyConstraint('template_versions_pk', ['template_id', 'version_no'])
    .execute();
  await sql`alter table templates add constraint templates_live_version_fk
    foreign key (id, live_version_no) references template_versions (template_id, version_no)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table templates drop constraint if exists templates_live_version_fk`.execute(db);
  for (const table of ['template_versions', 'template_variants', 'templates'])
    await db.schema.dropTable(table).ifExists().execute();
}
