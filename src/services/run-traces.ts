import type { Db } from '../db/database.js';
import { notFoundErrors } from '../errors.js';
import { gatheringOf } from '../domain/run-steps.js';
import { findGatheringWaiters, findTracedExecution, findTracedRuns } from '../repositories/run-traces.js';

/** Run traces (docs/runs.md): one execution with its runs and, for each gathering a run joined, the run that now carries it. */
export async function getExecutionTrace(db: Db, workspaceId: number, executionId: string) {
  const execution = await findTracedExecution(db, workspaceId, executionId);
  if (!execution) throw notFoundErrors.execution(executionId);
  const runs = await findTracedRuns(db, executionId);
  const waiters = await findGatheringWaiters(
    db,
    runs.map(gatheringOf).filter((id): id is string => id !== undefined),
  );
  return { execution, runs, waiters };
}
