import { sql, type Kysely } from 'kysely';

// Frozen in time: the state of the gathering nodes (issue #18). A batch gathers the triggers of one
// (workflow, node, recipient, batch key) while its window is open; a digest those of one (workflow,
// node, recipient) until its scheduled time. Items are the triggers' data.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workflow_batches')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('workflow_slug', 'text', (c) => c.notNull())
    .addColumn('node_ref', 'text', (c) => c.notNull())
    .addColumn('recipient_key', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) =>
      c
        .notNull()
        .defaultTo('batch')
        .check(sql`kind in ('batch', 'digest')`),
    )
    .addColumn('batch_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('open')
        .check(sql`status in ('open', 'closed')`),
    )
    .addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(1))
    // The run that waits for the window to close and then carries the batch on.
    .addColumn('waiter_run_id', 'text')
    .addColumn('closes_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // One open batch per key: two triggers arriving together meet on this index, never on a read.
  await sql`create unique index workflow_batches_open_uq on workflow_batches
    (workspace_id, workflow_slug, node_ref, recipient_key, batch_key) where kind = 'batch' and status = 'open'`.execute(
    db,
  );
  // One digest per period, open or closed: a trigger that comes after its period was sent goes to the next.
  await sql`create unique index workflow_digests_period_uq on workflow_batches
    (workspace_id, workflow_slug, node_ref, recipient_key, closes_at) where kind = 'digest'`.execute(db);
  await sql`create unique index workflow_batches_waiter_uq on workflow_batches (waiter_run_id, node_ref)`.execute(db);

  await db.schema
    .createTable('workflow_batch_items')
    .addColumn('batch_id', 'text', (c) => c.notNull().references('workflow_batches.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull())
    .addPrimaryKeyConstraint('workflow_batch_items_pk', ['batch_id', 'seq'])
    .execute();

  // The workflow's ratelimit per recipient: one slot per admitted run; the key row is locked while a
  // run counts the slots of its window, so two runs of one recipient never both take the last slot.
  await db.schema
    .createTable('workflow_rate_keys')
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('workflow_slug', 'text', (c) => c.notNull())
    .addColumn('recipient_key', 'text', (c) => c.notNull())
    .addColumn('touched_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('workflow_rate_keys_pk', ['workspace_id', 'workflow_slug', 'recipient_key'])
    .execute();
  await db.schema
    .createTable('workflow_rate_slots')
    .addColumn('run_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('workflow_slug', 'text', (c) => c.notNull())
    .addColumn('recipient_key', 'text', (c) => c.notNull())
    .addColumn('taken_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workflow_rate_slots_window_idx')
    .on('workflow_rate_slots')
    .columns(['workspace_id', 'workflow_slug', 'recipient_key', 'taken_at'])
    .execute();
  // A run waiting in a branch_waituntil node for a recipient's event; events that arrive are appended.
  await db.schema
    .createTable('workflow_event_waits')
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('node_ref', 'text', (c) => c.notNull())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('distinct_id', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('waiting'))
    .addColumn('timeout_at', 'timestamptz', (c) => c.notNull())
    .addColumn('events', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('workflow_event_waits_pk', ['run_id', 'node_ref'])
    .execute();
  await sql`create index workflow_event_waits_lookup_idx on workflow_event_waits
    (workspace_id, distinct_id, event_name) where status = 'waiting'`.execute(db);

  // A throttled run still walks its tree; its deliveries are recorded as rate_limited.
  await db.schema
    .alterTable('workflow_runs')
    .addColumn('rate_limited', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workflow_runs').dropColumn('rate_limited').execute();
  await db.schema.dropTable('workflow_event_waits').execute();
  await db.schema.dropTable('workflow_rate_slots').execute();
  await db.schema.dropTable('workflow_rate_keys').execute();
  await db.schema.dropTable('workflow_batch_items').execute();
  await db.schema.dropTable('workflow_batches').execute();
}
