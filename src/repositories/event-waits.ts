import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

/**
 * Runs waiting for a recipient's event (migrations/2026-11-26T80-flow.ts): in branch_waituntil nodes, and
 * smart routings whose success is an event.
 */

export async function insertEventWait(
  db: Db,
  wait: { runId: string; nodeRef: string; workspaceId: number; distinctId: string; eventName: string; timeoutAt: Date },
) {
  await db
    .insertInto('workflow_event_waits')
    .values({
      run_id: wait.runId,
      node_ref: wait.nodeRef,
      workspace_id: wait.workspaceId,
      distinct_id: wait.distinctId,
      event_name: wait.eventName,
      timeout_at: wait.timeoutAt,
    })
    .onConflict((oc) => oc.columns(['run_id', 'node_ref']).doNothing())
    .execute();
}

export const findEventWait = (trx: Trx, runId: string, nodeRef: string) =>
  trx
    .selectFrom('workflow_event_waits')
    .select(['status', 'timeout_at', 'events'])
    .where('run_id', '=', runId)
    .where('node_ref', '=', nodeRef)
    .forUpdate()
    .executeTakeFirst();

export async function settleEventWait(db: Db, runId: string, nodeRef: string, status: 'matched' | 'timed_out') {
  await db
    .updateTable('workflow_event_waits')
    .set({ status })
    .where('run_id', '=', runId)
    .where('node_ref', '=', nodeRef)
    .execute();
}

/**
 * Appends each event to the waits of its recipient and name, marks those runs due now, and returns
 * them: two statements whatever the number of events.
 */
export async function recordWaitedEvents(
  db: Db,
  workspaceId: number,
  events: { distinct_id: string; event: string; properties: Record<string, unknown> }[],
) {
  if (events.length === 0) return [];
  const result = await sql<{ run_id: string }>`
    update workflow_event_waits w
    set events = w.events || e.list
    from (
      select x.distinct_id, x.event, jsonb_agg(x.properties) as list
      from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as x(distinct_id text, event text, properties jsonb)
      group by x.distinct_id, x.event
    ) e
    where w.workspace_id = ${workspaceId} and w.status = 'waiting'
      and w.distinct_id = e.distinct_id and w.event_name = e.event
    returning w.run_id`.execute(db);
  const runIds = [...new Set(result.rows.map((r) => r.run_id))];
  if (runIds.length === 0) return [];
  // The runner leaves a waiting run alone until its resume_at: the event makes it due now.
  await db
    .updateTable('workflow_runs')
    .set({ resume_at: sql`now()` })
    .where('id', 'in', runIds)
    .where('status', '=', 'waiting')
    .execute();
  return runIds;
}
