import { sql, type Kysely } from 'kysely';

// Frozen in time: run traces (docs/runs.md). Each run keeps the outcome of every step it took, in
// order, written by the same statement that saves its progress (no extra statement per step); the
// executions list pages newest first within a workspace.
export async function up(db: Kysely<any>): Promise<void> {
  // A constant default: PostgreSQL adds the column without rewriting the table.
  await db.schema
    .alterTable('workflow_runs')
    .addColumn('steps', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .execute();
  await sql`create index executions_recent_idx on executions (workspace_id, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists executions_recent_idx`.execute(db);
  await db.schema.alterTable('workflow_runs').dropColumn('steps').execute();
}
