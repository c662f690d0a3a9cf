import { sql, type Kysely } from 'kysely';

// Frozen in time: subscriber lists, their draft versions (the versioned sync) and their members.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('subscriber_lists')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('list_id', 'text', (c) => c.notNull())
    .addColumn('list_name', 'text', (c) => c.notNull())
    .addColumn('list_description', 'text')
    .addColumn('source', 'text')
    .addColumn('track_user_entry', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('track_user_exit', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('subscriber_lists_workspace_list_unique', ['workspace_id', 'list_id'])
    .execute();
  await db.schema
    .createIndex('subscriber_lists_workspace_idx')
    .on('subscriber_lists')
    .columns(['workspace_id', 'created_at', 'list_id'])
    .execute();

  // A draft started by start_sync: its members replace the live ones at finish_sync.
  await db.schema
    .createTable('subscriber_list_versions')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('list_pk', 'bigint', (c) => c.notNull().references('subscriber_lists.id').onDelete('cascade'))
    .addColumn('version_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('subscriber_list_versions_unique', ['list_pk', 'version_id'])
    .execute();

  // A member of the live list (version_pk null) or of one draft version. The id orders pages.
  await db.schema
    .createTable('subscriber_list_members')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('list_pk', 'bigint', (c) => c.notNull().references('subscriber_lists.id').onDelete('cascade'))
    .addColumn('version_pk', 'bigint', (c) => c.references('subscriber_list_versions.id').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index subscriber_list_members_unique on subscriber_list_members (list_pk, coalesce(version_pk, 0), user_id)`.execute(
    db,
  );
  await db.schema
    .createIndex('subscriber_list_members_page_idx')
    .on('subscriber_list_members')
    .columns(['list_pk', 'version_pk', 'id'])
    .execute();
  await db.schema
    .createIndex('subscriber_list_members_user_idx')
    .on('subscriber_list_members')
    .columns(['user_id', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('subscriber_list_members').ifExists().execute();
  await db.schema.dropTable('subscriber_list_versions').ifExists().execute();
  await db.schema.dropTable('subscriber_lists').ifExists().execute();
}
