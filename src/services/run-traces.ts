import type { Db } from '../db/database.js';
import { notFoundErrors } from '../errors.js';
import { gatheringOf, presentExecution, presentRunTrace } from '../presenters/run-traces.js';
import type { CursorWindow } from '../repositories/cursor-page.js';
import {
  findGatheringWaiters,
  findTracedExecution,
  findTracedRuns,
  listTracedExecutions,
  type ExecutionFilter,
} from '../repositories/run-traces.js';

/** Run traces (docs/runs.md): one execution with its runs and steps, and the newest-first list. */

export async function getExecutionTrace(db: Db, workspaceId: number, executionId: string) {
  const execution = await findTracedExecution(db, workspaceId, executionId);
  if (!execution) throw notFoundErrors.execution(executionId);
  const runs = await findTracedRuns(db, executionId);
  const waiters = await findGatheringWaiters(
    db,
    runs.map(gatheringOf).filter((id): id is string => id !== undefined),
  );
  return {
    ...presentExecution(execution),
    runs: runs.map((run) => presentRunTrace(run, execution.cancelled_at, waiters)),
  };
}

export async function listExecutionTraces(
  db: Db,
  workspaceId: number,
  filter: ExecutionFilter,
  window: CursorWindow<string>,
) {
  const page = await listTracedExecutions(db, workspaceId, filter, window);
  return { meta: page.meta, results: page.results.map(presentExecution) };
}
