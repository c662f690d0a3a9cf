import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { isDatabaseUnavailable } from '../errors.js';

/**
 * A worker meeting a database outage (docs/engine.md, "Outages and lost workers"). Its jobs stay claimed while it
 * waits (their heartbeat resumes with the database), so it settles them itself as soon as the database is back,
 * instead of leaving them `active` for the supervisor to find; and what it could not write — a provider's answer
 * above all, whose call must not be made again — it writes then.
 */

// Short: once the database is back, a worker's own write should land before the supervisor, finding the job's
// heartbeat stale, has it retried elsewhere (the retry waits at least 1 s).
const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 500;

/** Waits `ms`, or less when `signal` aborts first. */
export const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * `write`, tried again while the database is unreachable, until it succeeds or `signal` aborts; any other error, and
 * the last one after an abort, is thrown.
 */
export async function whenDatabaseAnswers<T>(write: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await write();
    } catch (error) {
      if (!isDatabaseUnavailable(error) || signal.aborted) throw error;
      await pause(wait, signal);
    }
  }
}

/**
 * After a job failed on an unreachable database: returns once the database answers again (or `signal` aborts), so
 * the queue's record of the failure lands and the job is retried at once, not when the supervisor finds it.
 */
export async function databaseBack(db: Db, error: unknown, signal: AbortSignal) {
  if (!isDatabaseUnavailable(error)) return;
  await whenDatabaseAnswers(() => sql`select 1`.execute(db), signal).catch(() => undefined);
}
