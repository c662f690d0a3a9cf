import { sql, type SqlBool } from 'kysely';
import type { Db } from '../db/database.js';
import { beyondWindow, cursorPage, windowOrder, withinWindow, type CursorWindow } from './cursor-page.js';

/**
 * Run traces (docs/runs.md): executions with what their runs did. An execution's status is derived
 * from its own and its runs' (domain/run-steps.ts `traceExecutionStatus`, repeated here in SQL so the
 * list can filter on it).
 */

export interface ExecutionFilter {
  workflowSlug?: string;
  recipientId?: string;
  status?: string;
  createdAtGte?: string;
  createdAtLte?: string;
}

/** The runs' statuses, summed per execution in one pass over its runs. */
const runSummary = sql<{
  runs: number;
  running: boolean;
  waiting: boolean;
  failed: boolean;
}>`(select count(*)::int as runs, coalesce(bool_or(r.status = 'running'), false) as running,
    coalesce(bool_or(r.status = 'waiting'), false) as waiting, coalesce(bool_or(r.status = 'failed'), false) as failed
  from workflow_runs r where r.execution_id = e.id)`;

const derivedStatus = sql<string>`case when e.status = 'cancelled' then 'cancelled'
    when s.runs = 0 then 'accepted' when s.running then 'running' when s.waiting then 'waiting'
    when s.failed then 'failed' else 'completed' end`;

/** Executions of the workspace (broadcasts included) with their runs' summary and derived status. */
function executionsOf(db: Db, workspaceId: number, filter: ExecutionFilter) {
  let query = db
    .selectFrom(
      db
        .selectFrom(sql`executions`.as('e'))
        .innerJoinLateral(runSummary.as('s'), (join) => join.onTrue())
        .select([
          sql<string>`e.id`.as('id'),
          sql<string>`e.workflow_slug`.as('workflow_slug'),
          sql<number>`e.version_no`.as('version_no'),
          sql<Date>`e.created_at`.as('created_at'),
          sql<string | null>`e.idempotency_key`.as('idempotency_key'),
          sql<string>`e.tenant_id`.as('tenant_id'),
          sql<unknown>`e.actor`.as('actor'),
          sql<unknown[]>`e.recipients`.as('recipients'),
          sql<string>`e.source`.as('source'),
          sql<Date | null>`e.cancelled_at`.as('cancelled_at'),
          sql<number>`s.runs`.as('runs_count'),
          derivedStatus.as('status'),
        ])
        .where(sql<SqlBool>`e.workspace_id = ${workspaceId}`)
        .$if(filter.workflowSlug !== undefined, (q) => q.where(sql<SqlBool>`e.workflow_slug = ${filter.workflowSlug}`))
        .$if(filter.createdAtGte !== undefined, (q) => q.where(sql<SqlBool>`e.created_at >= ${filter.createdAtGte}`))
        .$if(filter.createdAtLte !== undefined, (q) => q.where(sql<SqlBool>`e.created_at <= ${filter.createdAtLte}`))
        .$if(filter.recipientId !== undefined, (q) =>
          // A run of the user (the runs' unique key), or a named recipient whose run is not made yet.
          q.where(
            sql<SqlBool>`(exists (select 1 from workflow_runs r where r.execution_id = e.id
                and r.recipient_key = ${`user:${filter.recipientId}`})
              or e.recipients @> ${JSON.stringify([{ distinctId: filter.recipientId }])}::jsonb)`,
          ),
        )
        .as('x'),
    )
    .selectAll();
  if (filter.status !== undefined) query = query.where('x.status', '=', filter.status);
  return query;
}

export type ExecutionRow = Awaited<ReturnType<typeof findTracedExecution>> & {};

/** Executions newest first (`?before` / `?after` cursors over their ULID ids). */
export async function listTracedExecutions(
  db: Db,
  workspaceId: number,
  filter: ExecutionFilter,
  window: CursorWindow<string>,
) {
  const rows = await executionsOf(db, workspaceId, filter)
    .where(withinWindow('x.id', window))
    .orderBy('x.id', windowOrder(window))
    .limit(window.limit + 1)
    .execute();
  const totals = await db
    .selectFrom(executionsOf(db, workspaceId, filter).as('y'))
    .select((eb) => [eb.fn.countAll<number>().as('count'), beyondWindow('y.id', window).as('beyond')])
    .executeTakeFirstOrThrow();
  return cursorPage(rows, (row) => row.id, window, totals);
}

export function findTracedExecution(db: Db, workspaceId: number, executionId: string) {
  return executionsOf(db, workspaceId, {}).where('x.id', '=', executionId).executeTakeFirst();
}

/** How many runs one trace shows at most (an object's fan-out can make thousands). */
export const TRACE_RUNS_LIMIT = 1000;

/** An execution's runs with their steps, in the order they were made. */
export function findTracedRuns(db: Db, executionId: string) {
  return db
    .selectFrom('workflow_runs')
    .select(['id', 'recipient_type', 'distinct_id', 'object_type', 'object_id', 'status', 'steps'])
    .where('execution_id', '=', executionId)
    .orderBy('id')
    .limit(TRACE_RUNS_LIMIT)
    .execute();
}

/** The run that now carries each gathering (a batch's or digest's waiter changes hands on a cancel). */
export async function findGatheringWaiters(db: Db, gatheringIds: string[]) {
  if (gatheringIds.length === 0) return new Map<string, string | null>();
  const rows = await db
    .selectFrom('workflow_batches')
    .select(['id', 'waiter_run_id'])
    .where('id', 'in', sql<string>`(select jsonb_array_elements_text(${JSON.stringify(gatheringIds)}::jsonb))`)
    .execute();
  return new Map(rows.map((row) => [row.id, row.waiter_run_id]));
}
