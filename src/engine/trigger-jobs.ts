import type { Trx } from '../db/database.js';
import type { LockedRun } from '../repositories/runs.js';
import { jobId } from './job-ids.js';
import { eachAlone, type HandlerContext } from './job-handler.js';
import { QUEUES, type JobOptions, type QueuedJob } from './queue.js';
import { startExecutions } from './recipients.js';

/**
 * Trigger jobs (docs/engine.md, "Triggers"): one pg-boss job starts a group of executions accepted
 * together (a trigger batch, or the plain batches of concurrent requests the trigger writer gathers),
 * instead of one job per execution. A job row is written three times (inserted, fetched, completed),
 * none of them HOT: per trigger that was PostgreSQL's largest single cost (BENCHMARKS.md, "Sustained,
 * fifth session").
 *
 * What one job per execution guaranteed, a group keeps: its id derives from its executions, and
 * starting an execution twice makes no second run (runs are unique per execution and recipient), so a
 * group started again after a lost completion (a killed worker) starts only what was not started; and
 * a group whose start fails is started execution by execution, each failing one going on as a job of
 * its own, so one bad execution neither fails nor restarts its group-mates.
 */

/** A trigger job: the executions it starts, all of one workspace (the console's queue view tells a job's workspace). */
export interface TriggerJobData {
  workspaceId: number;
  executionIds: string[];
}

/** What the trigger queue may hold: a group, or a job of the older shape (one execution), queued before groups. */
export type QueuedTriggerData = TriggerJobData | { executionId: string };

export interface TriggerJob {
  data: TriggerJobData;
  options: JobOptions;
}

/** The most executions one trigger job carries, and one transaction of the worker starts (then steps). */
export const MAX_TRIGGER_GROUP = 100;

export const executionsOf = (data: QueuedTriggerData) =>
  'executionIds' in data ? data.executionIds : [data.executionId];

/** One execution's trigger job; `startAfter`, a broadcast's delay or `trigger_at`. */
export const triggerJob = (workspaceId: number, executionId: string, startAfter?: Date): TriggerJob => ({
  data: { workspaceId, executionIds: [executionId] },
  options: { id: jobId('trigger', executionId), ...(startAfter ? { startAfter } : {}) },
});

/**
 * Jobs due now gathered into groups of at most MAX_TRIGGER_GROUP executions of one workspace (a group's id derives
 * from its executions: a group of one keeps the id of its execution's own job); a job that starts later stays its
 * own.
 */
export function groupTriggerJobs(jobs: TriggerJob[]): TriggerJob[] {
  const now = new Map<number, string[]>();
  for (const job of jobs)
    if (job.options.startAfter === undefined) {
      const ids = now.get(job.data.workspaceId);
      if (ids) ids.push(...job.data.executionIds);
      else now.set(job.data.workspaceId, [...job.data.executionIds]);
    }
  const groups: TriggerJob[] = [];
  for (const [workspaceId, ids] of now)
    for (let at = 0; at < ids.length; at += MAX_TRIGGER_GROUP) {
      const executionIds = ids.slice(at, at + MAX_TRIGGER_GROUP);
      groups.push({ data: { workspaceId, executionIds }, options: { id: jobId('trigger', ...executionIds) } });
    }
  return [...groups, ...jobs.filter((job) => job.options.startAfter !== undefined)];
}

/**
 * A fetched batch of trigger jobs: their executions started in transactions of at most MAX_TRIGGER_GROUP
 * executions (whole jobs each), whose new runs `stepNew` steps in the same transaction. If one fails, the
 * handler starts each job alone (`startTriggerJobAlone`); what an earlier transaction started is not
 * started again.
 */
export async function startTriggerBatch(
  deps: HandlerContext,
  jobs: QueuedJob<QueuedTriggerData>[],
  stepNew: (trx: Trx, runs: LockedRun[]) => Promise<string[]>,
) {
  let chunk: string[] = [];
  const start = (executionIds: string[]) =>
    deps.db
      .transaction()
      .execute((trx) => startExecutions(trx, deps.queue, executionIds, (runs) => stepNew(trx, runs)));
  for (const job of jobs) {
    const executionIds = executionsOf(job.data);
    if (chunk.length > 0 && chunk.length + executionIds.length > MAX_TRIGGER_GROUP) {
      await start(chunk);
      chunk = [];
    }
    chunk.push(...executionIds);
  }
  if (chunk.length > 0) await start(chunk);
}

/**
 * One trigger job on its own (its batch failed): its executions started without stepping (their runs go to run
 * jobs, so a bad first step is its run's). If that fails, each execution is started alone; one that fails again
 * goes on as a trigger job of its own (retried, and finally failed, as any job), and this job completes: its
 * group-mates are started once. If that send fails, this job fails and is retried whole (an execution already
 * started is not started again).
 */
export async function startTriggerJobAlone(deps: HandlerContext, job: QueuedJob<QueuedTriggerData>) {
  const executionIds = executionsOf(job.data);
  const start = (ids: string[]) => deps.db.transaction().execute((trx) => startExecutions(trx, deps.queue, ids));
  try {
    await start(executionIds);
    return;
  } catch (error) {
    if (executionIds.length === 1) throw error;
    deps.log.debug?.({ err: error, job_id: job.id }, 'trigger group failed; starting its executions one by one');
  }
  await eachAlone(deps, executionIds, (executionId) => start([executionId]), {
    queue: QUEUES.trigger,
    job: (executionId) => ({
      data: ('workspaceId' in job.data
        ? { workspaceId: job.data.workspaceId, executionIds: [executionId] }
        : { executionId }) satisfies QueuedTriggerData,
      options: { id: jobId('trigger-alone', executionId, job.id), startAfter: 1 },
    }),
    failed: (executionId) => ({ queue: QUEUES.trigger, job_id: job.id, execution_id: executionId }),
    message: 'execution of a trigger group failed; it goes on as a trigger job of its own',
  });
}
