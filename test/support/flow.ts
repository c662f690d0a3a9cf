import { sql } from 'kysely';
import type { TestApp } from './app.js';
import type { WorkspaceFixture } from './fixtures.js';
import { configClient } from './config.js';

/**
 * Controlled time for the waiting nodes: the engine reads a clock the test moves, and the test makes
 * the queue's scheduled resume job of a run due now, as the queue itself would once the time came.
 */
export function testClock() {
  let shift = 0;
  return {
    now: () => Date.now() + shift,
    /** Moves the engine's clock so that it reads `instant` plus `slackMs`. */
    jumpTo(instant: number, slackMs = 1000) {
      shift = instant + slackMs - Date.now();
    },
    reset() {
      shift = 0;
    },
  };
}

/** Makes the run's scheduled jobs due now; returns how many there were. */
export async function makeRunJobsDue(t: () => TestApp, runId: string) {
  const schema = t().engineRuntime!.schema;
  const result = await sql`update ${sql.id(schema, 'job')} set start_after = now()
    where name = 'herald-run' and state = 'created' and data->>'runId' = ${runId}`.execute(t().db);
  return Number(result.numAffectedRows ?? 0);
}

/** The run of a one-recipient trigger, once the trigger has been resolved into it. */
export async function runOf(t: () => TestApp, executionId: string) {
  return t()
    .db.selectFrom('workflow_runs')
    .select(['id', 'status', 'resume_at', 'position', 'data', 'updated_at'])
    .where('execution_id', '=', executionId)
    .executeTakeFirst();
}

/** Saves a workflow of these nodes and commits it: the commit's status and message (a refusal names the node). */
export async function commitOutcome(t: () => TestApp, ws: WorkspaceFixture, slug: string, nodes: unknown[]) {
  const config = configClient(t, ws);
  await config.postWorkflow(slug, { name: slug, category: 'order-updates', trigger_type: 'api', tree: { nodes } });
  const commit = await config.commitWorkflow(slug);
  return { status: commit.statusCode, message: String(commit.json().message ?? '') };
}
