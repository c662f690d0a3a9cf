import type { Db } from '../db/database.js';
import { purges } from '../repositories/retention.js';
import { QUEUES, type Queue } from './queue.js';

/**
 * The retention purge (docs/operations.md, "Retention"): everything RETENTION_DAYS old goes, table by
 * table, in batches of `batchSize` rows, each batch a statement of its own (no long transaction, no
 * long lock), until a batch comes back short or the pass's time is spent; the next pass (the hourly
 * schedule) goes on from there. Live runs, and what they still need, are never touched
 * (repositories/retention.ts).
 */

/** When the schedule sends the purge: every hour, at 17 minutes past (UTC). */
export const RETENTION_CRON = '17 * * * *';
export const RETENTION_BATCH_SIZE = 1000;
/** A pass stops starting batches after this long, well within the job's expiry. */
export const RETENTION_PASS_MS = 120_000;

export interface RetentionDeps {
  db: Db;
  queue: Queue;
  now: () => number;
  days: number;
  batchSize?: number;
  passMs?: number;
  signal?: AbortSignal;
}

export type PurgeCounts = Record<string, number>;

/** One pass: rows deleted per table (`queue_jobs` for pg-boss's finished jobs). */
export async function purgeExpired(deps: RetentionDeps): Promise<PurgeCounts> {
  const counts: PurgeCounts = {};
  if (deps.days <= 0) return counts;
  const cutoff = new Date(deps.now() - deps.days * 86_400_000);
  const batchSize = deps.batchSize ?? RETENTION_BATCH_SIZE;
  const ends = performance.now() + (deps.passMs ?? RETENTION_PASS_MS);
  // Messages before their runs, runs before their triggers: a trigger goes once no run of it is left.
  const steps: [string, (db: Db, cutoff: Date, limit: number) => Promise<number>][] = [
    ...Object.entries(purges),
    ['queue_jobs', (db, at, limit) => deps.queue.purgeFinishedJobs(db, at, limit)],
  ];
  // Once the pass's time is spent or its job aborted, no batch starts, in this table or the next.
  const over = () => performance.now() > ends || deps.signal?.aborted === true;
  for (const [table, purge] of steps) {
    if (over()) break;
    counts[table] = 0;
    for (;;) {
      const gone = await purge(deps.db, cutoff, batchSize);
      counts[table] += gone;
      if (gone < batchSize || over()) break;
    }
  }
  return counts;
}

/**
 * The worker's part: the hourly schedule (one job per hour whatever the number of workers; pg-boss
 * keeps the schedule in the database) and the handler that runs a pass. RETENTION_DAYS=0 removes the
 * schedule.
 */
export async function workRetention(deps: Omit<RetentionDeps, 'signal'> & { log: RetentionLog }) {
  await deps.queue.schedule(QUEUES.retention, deps.days > 0 ? RETENTION_CRON : null);
  if (deps.days <= 0) return;
  await deps.queue.work(QUEUES.retention, { batchSize: 1, localConcurrency: 1 }, async (jobs) => {
    for (const job of jobs) {
      const purged = await purgeExpired({ ...deps, signal: job.signal });
      deps.log.info?.({ purged, retention_days: deps.days }, 'retention purge');
    }
  });
}

interface RetentionLog {
  info?(object: object, message: string): void;
}
