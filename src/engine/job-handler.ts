import type { Db } from '../db/database.js';
import { databaseBack } from './outage.js';
import type { JobOptions, Queue, QueuedJob, QueueName } from './queue.js';

/**
 * A queue's handler (docs/engine.md, "The worker"): one for every queue, after pg-boss's own small worker. A fetched
 * batch goes through four named states:
 *
 * - together: `batch` does the jobs' work at once (one transaction, set-based reads and writes); a single job is a
 *   batch of one;
 * - alone: if `batch` fails for several jobs (or `alone` is given), each job's work is done on its own (`alone`, by
 *   default a batch of one), so one bad job is retried alone and holds back none of the others; a failure thrown as
 *   `FailTogether` (a provider was called) skips this: the batch's jobs fail together;
 * - after: what `batch` left to do per job (a run's outside call), each job settled on its own;
 * - settled: each job completed or failed; a failure on an unreachable database is recorded once it is back (the job
 *   is then retried at once), unless the worker is stopping.
 */

/** What is left for one job after its batch committed (nothing, by default). */
export type After<T> = (job: QueuedJob<T>) => Promise<void>;

export interface JobWork<T> {
  batch: (jobs: QueuedJob<T>[]) => Promise<After<T> | void>;
  /** A job's work alone, when its batch failed (default: a batch of one). */
  alone?: (job: QueuedJob<T>) => Promise<void>;
  /** The jobs' after-steps side by side (deliveries: a slow provider holds its own message), else one after the other. */
  parallel?: boolean;
}

/** A batch's failure after an effect that must not be repeated: its jobs fail together, none is tried alone. */
export class FailTogether extends Error {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason), { cause: reason });
  }
}

type Result = { id: string; status: 'completed' } | { id: string; status: 'failed'; output: { message: string } };

export interface HandlerContext {
  db: Db;
  queue: Queue;
  log: { error(object: object, message: string): void; debug?(object: object, message: string): void };
}

/**
 * The members of a batch job (a fan-out page's runs, a trigger group's executions) each on its own, after their batch
 * failed: one that fails again does not fail its batch-mates' job but goes on as a job of its own (`alone.job`, sent
 * after the queue's first retry delay; retried, and finally failed, as any job), and the batch job completes. If that
 * send fails, the batch job fails and is retried whole (a member already done is not done again).
 */
export async function eachAlone(
  context: HandlerContext,
  members: string[],
  run: (member: string) => Promise<void>,
  alone: {
    queue: QueueName;
    job: (member: string) => { data: object; options: JobOptions };
    /** The log fields naming a member that failed. */
    failed: (member: string) => object;
    message: string;
  },
) {
  const failed: string[] = [];
  for (const member of members)
    await run(member).catch((error: unknown) => {
      context.log.error({ err: error, ...alone.failed(member) }, alone.message);
      failed.push(member);
    });
  if (failed.length === 0) return;
  await context.db.transaction().execute((trx) => context.queue.sendMany(trx, alone.queue, failed.map(alone.job)));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

export function jobHandler<T>(context: HandlerContext, name: string, work: JobWork<T>) {
  const { db, queue, log } = context;
  const failed = async (job: QueuedJob<T>, error: unknown): Promise<Result> => {
    log.error({ err: error, queue: name, job_id: job.id }, 'job failed; the queue retries it');
    await databaseBack(db, error, AbortSignal.any([job.signal, queue.stopSignal]));
    return { id: job.id, status: 'failed', output: { message: messageOf(error) } };
  };
  const settle = async (job: QueuedJob<T>, run: () => Promise<void>): Promise<Result> => {
    try {
      await run();
      return { id: job.id, status: 'completed' };
    } catch (error) {
      return failed(job, error instanceof FailTogether ? error.reason : error);
    }
  };
  const each = (jobs: QueuedJob<T>[], run: (job: QueuedJob<T>) => Promise<void>) =>
    work.parallel
      ? Promise.all(jobs.map((job) => settle(job, () => run(job))))
      : jobs.reduce<Promise<Result[]>>(
          async (done, job) => [...(await done), await settle(job, () => run(job))],
          Promise.resolve([]),
        );
  const alone =
    work.alone ??
    (async (job: QueuedJob<T>) => {
      const after = await work.batch([job]);
      if (after) await after(job);
    });

  return async (jobs: QueuedJob<T>[]): Promise<Result[]> => {
    let after: After<T> | void;
    try {
      after = await work.batch(jobs);
    } catch (error) {
      if (error instanceof FailTogether || (jobs.length === 1 && !work.alone))
        return Promise.all(jobs.map((job) => failed(job, error instanceof FailTogether ? error.reason : error)));
      log.debug?.({ err: error, queue: name }, 'batched jobs failed; each goes on its own');
      return each(jobs, alone);
    }
    return each(jobs, after ?? (async () => {}));
  };
}
