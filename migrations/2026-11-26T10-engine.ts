import { sql, type Kysely } from 'kysely';

// Frozen in time: the engine's records. Triggers (executions), one run per recipient, one message
// per (run, delivery step, channel), the workspace's vendors, and the idempotency keys of triggers.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('executions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('workflow_id', 'bigint')
    .addColumn('workflow_slug', 'text', (c) => c.notNull())
    .addColumn('version_no', 'integer', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    // A legacy dynamic workflow's tree, built from its request; null: the pinned workflow version's.
    .addColumn('tree', 'jsonb')
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('actor', 'jsonb')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('recipients', 'jsonb', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('cancellation_key', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('accepted'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('cancelled_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('executions_cancellation_idx')
    .on('executions')
    .columns(['workspace_id', 'cancellation_key'])
    .where(sql.ref('cancellation_key'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('executions_workflow_idx')
    .on('executions')
    .columns(['workspace_id', 'workflow_slug', 'created_at'])
    .execute();

  // The first answer to a key; a row older than 24 h is replaced by the next trigger with that key.
  await db.schema
    .createTable('trigger_idempotency_keys')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('trigger_idempotency_keys_pk', ['workspace_id', 'idempotency_key'])
    .execute();

  await db.schema
    .createTable('workflow_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.id').onDelete('cascade'))
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('recipient_key', 'text', (c) => c.notNull())
    .addColumn('recipient_type', 'text', (c) => c.notNull().check(sql`recipient_type in ('user', 'object')`))
    .addColumn('distinct_id', 'text')
    .addColumn('object_type', 'text')
    .addColumn('object_id', 'text')
    // Transient users' channels and properties: used for this run only, never stored on a user.
    .addColumn('inline', 'jsonb')
    .addColumn('subscription', 'jsonb')
    // What httpapi_webhook nodes added to the trigger's data, for the steps after them.
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('running'))
    // Where the run continues: the index path of the next node in the tree.
    .addColumn('position', 'jsonb', (c) => c.notNull().defaultTo(sql`'[0]'::jsonb`))
    .addColumn('resume_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('workflow_runs_recipient_uq', ['execution_id', 'recipient_key'])
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // The list's cursor key: ids are ULIDs, cursors page over an increasing integer (cursor-page.ts).
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('execution_id', 'text', (c) => c.notNull())
    .addColumn('node_ref', 'text', (c) => c.notNull())
    .addColumn('workflow_slug', 'text', (c) => c.notNull())
    .addColumn('version_no', 'integer', (c) => c.notNull())
    .addColumn('recipient_type', 'text', (c) => c.notNull())
    .addColumn('distinct_id', 'text')
    .addColumn('object_type', 'text')
    .addColumn('object_id', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('channel_identity', 'jsonb')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('vendor', 'jsonb')
    .addColumn('template', 'jsonb')
    .addColumn('content', 'jsonb')
    .addColumn('error', 'jsonb')
    .addColumn('attempts', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('is_read', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_archived', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('triggered_at', 'timestamptz')
    .addColumn('sent_at', 'timestamptz')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('seen_at', 'timestamptz')
    .addColumn('read_at', 'timestamptz')
    .addColumn('clicked_at', 'timestamptz')
    .addColumn('dismissed_at', 'timestamptz')
    .addColumn('archived_at', 'timestamptz')
    .addUniqueConstraint('messages_step_uq', ['run_id', 'node_ref', 'channel'])
    .execute();
  await db.schema.createIndex('messages_list_idx').on('messages').columns(['workspace_id', 'seq']).execute();
  await db.schema.createIndex('messages_execution_idx').on('messages').columns(['execution_id']).execute();

  await db.schema
    .createTable('vendors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('nickname', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    // Secret keys hold the secret box's ciphertext, never the plain value.
    .addColumn('config', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('vendors_channel_idx').on('vendors').columns(['workspace_id', 'channel']).execute();
  // At most one default vendor per channel.
  await sql`create unique index vendors_default_uq on vendors (workspace_id, channel) where is_default`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['vendors', 'messages', 'workflow_runs', 'trigger_idempotency_keys', 'executions'])
    await db.schema.dropTable(table).execute();
}
