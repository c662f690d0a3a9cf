import { sql, type Kysely } from 'kysely';

// Frozen in time: broadcasts (an execution whose recipients are a list's members, paged by the
// worker), the messages and pending runs of one user found by distinct_id (a merge moves them),
// and the payload schema a workflow links (validated at trigger).
export async function up(db: Kysely<any>): Promise<void> {
  // A broadcast's list (its public list_id); null for every other execution.
  await db.schema.alterTable('executions').addColumn('list_id', 'text').execute();
  await sql`create index executions_list_idx on executions (workspace_id, list_id) where list_id is not null`.execute(
    db,
  );
  await sql`create index messages_user_idx on messages (workspace_id, distinct_id) where recipient_type = 'user'`.execute(
    db,
  );
  // A user's runs still to come (a merge moves them).
  await sql`create index workflow_runs_pending_user_idx on workflow_runs (workspace_id, distinct_id)
    where status in ('running', 'waiting')`.execute(db);
  // `{schema: <slug>, version_no: <n> | null}` or null: versioned with the rest of the workflow.
  await db.schema.alterTable('workflows').addColumn('payload_schema', 'jsonb').execute();
  await db.schema.alterTable('workflow_versions').addColumn('payload_schema', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('workflow_versions').dropColumn('payload_schema').execute();
  await db.schema.alterTable('workflows').dropColumn('payload_schema').execute();
  await sql`drop index if exists workflow_runs_pending_user_idx`.execute(db);
  await sql`drop index if exists messages_user_idx`.execute(db);
  await sql`drop index if exists executions_list_idx`.execute(db);
  await db.schema.alterTable('executions').dropColumn('list_id').execute();
}
