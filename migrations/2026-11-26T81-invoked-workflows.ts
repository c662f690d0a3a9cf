import type { Kysely } from 'kysely';

// Frozen in time: a workflow started by another run's invokeworkflow node (issue #18) records the
// invoking run (its messages' parent_execution_id) and how deep the chain of invocations is, so a
// workflow that invokes itself stops at the limit.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('executions')
    .addColumn('parent_run_id', 'text')
    .addColumn('invoke_depth', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('executions').dropColumn('parent_run_id').dropColumn('invoke_depth').execute();
}
