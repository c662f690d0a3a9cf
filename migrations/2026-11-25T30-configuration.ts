import { sql, type Kysely } from 'kysely';

// Frozen in time: preference categories, workflows and translations, each a draft plus committed versions.
export async function up(db: Kysely<any>): Promise<void> {
  // Every committed definition is kept; the live one is the highest version_no. The primary key
  // makes two concurrent commits unable to produce the same number.
  await db.schema
    .createTable('preference_category_versions')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull().check(sql`version_no > 0`))
    .addColumn('root_categories', 'jsonb', (c) => c.notNull())
    .addColumn('commit_message', 'text')
    .addColumn('committed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('committed_by', 'jsonb')
    .addPrimaryKeyConstraint('preference_category_versions_pk', ['workspace_id', 'version_no'])
    .execute();

  await db.schema
    .createTable('preference_category_drafts')
    .addColumn('workspace_id', 'integer', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    .addColumn('root_categories', 'jsonb', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'jsonb')
    .execute();

  // The workflow row holds the draft; workflow_versions the committed history.
  await db.schema
    .createTable('workflows')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('is_enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('trigger_type', 'text', (c) => c.notNull().check(sql`trigger_type in ('api', 'event')`))
    .addColumn('trigger_events', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('tags', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('tree', 'jsonb', (c) => c.notNull())
    .addColumn('live_version_no', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_by', 'jsonb')
    .addColumn('last_executed_at', 'timestamptz')
    .addUniqueConstraint('workflows_workspace_slug_unique', ['workspace_id', 'slug'])
    .execute();

  await db.schema
    .createTable('workflow_versions')
    .addColumn('workflow_id', 'bigint', (c) => c.notNull().references('workflows.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull().check(sql`version_no > 0`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('trigger_events', 'jsonb', (c) => c.notNull())
    .addColumn('tags', 'jsonb', (c) => c.notNull())
    .addColumn('tree', 'jsonb', (c) => c.notNull())
    .addColumn('commit_message', 'text')
    .addColumn('committed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('committed_by', 'jsonb')
    .addPrimaryKeyConstraint('workflow_versions_pk', ['workflow_id', 'version_no'])
    .execute();
  // The live pointer always names a committed version of the same workflow.
  await sql`alter table workflows add constraint workflows_live_version_fk
    foreign key (id, live_version_no) references workflow_versions (workflow_id, version_no)`.execute(db);

  // One row per file: its draft content (null = marked for deletion) and its live content (null = never committed).
  await db.schema
    .createTable('translation_files')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('namespace', 'text')
    .addColumn('draft_content', 'jsonb')
    .addColumn('draft_updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('draft_updated_by', 'jsonb')
    .addColumn('live_content', 'jsonb')
    .addColumn('live_action', 'text', (c) => c.check(sql`live_action in ('added', 'updated')`))
    .addColumn('live_updated_at', 'timestamptz')
    .addPrimaryKeyConstraint('translation_files_pk', ['workspace_id', 'filename'])
    .addCheckConstraint('translation_files_not_empty', sql`draft_content is not null or live_content is not null`)
    .execute();

  await db.schema
    .createTable('translation_versions')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('version_no', 'integer', (c) => c.notNull().check(sql`version_no > 0`))
    .addColumn('changes', 'jsonb', (c) => c.notNull())
    .addColumn('commit_message', 'text')
    .addColumn('committed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('committed_by', 'jsonb')
    .addPrimaryKeyConstraint('translation_versions_pk', ['workspace_id', 'version_no'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table workflows drop constraint if exists workflows_live_version_fk`.execute(db);
  for (const table of [
    'translation_versions',
    'translation_files',
    'workflow_versions',
    'workflows',
    'preference_category_drafts',
    'preference_category_versions',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
