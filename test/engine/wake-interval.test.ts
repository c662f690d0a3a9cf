import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { QUEUES, Queue } from '../../src/engine/queue.js';

/**
 * The trigger queue's wake-ups are spaced by engine (src/engine/queue.ts): at most one NOTIFY per 5 ms on
 * PostgreSQL whatever the number of jobs; on PGlite, where the API and the worker share one thread and
 * each round of the worker costs the same for 5 triggers as for 50, one per 100 ms, or at once when 50
 * jobs were sent since the last. Only the timing differs: the statement is the same.
 */

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** The times of the NOTIFYs `asking` sends on a new queue of either engine (each wake call once `asking` returns). */
async function notifyTimes(embedded: boolean, asking: (wake: (jobs: number) => void) => Promise<void>) {
  const times: number[] = [];
  const url = embedded ? undefined : process.env.DATABASE_URL;
  const { db, pglite } = createDatabase({
    url,
    dataDir: 'memory://',
    // When each NOTIFY was sent: its statement's end less its duration (a loaded machine stretches some).
    onQuery: (event) => void (/pg_notify/.test(event.query.sql) && times.push(Date.now() - event.queryDurationMillis)),
  });
  closing.push(() => db.destroy());
  const queue = new Queue({ url, pglite });
  // The database ready first (a new PGlite takes seconds to start under load), so the window measures the wakes.
  await sql`select 1`.execute(db);
  times.length = 0;
  await asking((jobs) => queue.wake(db, QUEUES.trigger, jobs));
  return times;
}

/** A wake of `jobs` jobs every `every` ms for `ms`, then the interval's last NOTIFY waited for. */
const steadily = (jobs: number, every: number, ms: number) => async (wake: (jobs: number) => void) => {
  const started = Date.now();
  while (Date.now() - started < ms) {
    wake(jobs);
    await sleep(every);
  }
  await sleep(150);
};

describe('waking the trigger queue', () => {
  // Its own PGlite, whichever engine the suite runs on (starting it takes tens of seconds on a loaded machine).
  it('on PGlite, sends at most one NOTIFY per 100 ms for a trickle of jobs', { timeout: 120_000 }, async () => {
    const times = await notifyTimes(true, steadily(1, 5, 350));
    // 350 ms of one-job wakes every 5 ms (20 jobs an interval, under the 50 that wake at once): one at once, then one as each 100 ms ends (about four
    // or five), where the 20 ms of before sent about eighteen; each about 100 ms after the one before.
    expect(times.length).toBeGreaterThanOrEqual(3);
    expect(times.length).toBeLessThanOrEqual(6);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(90);
  });

  it('on PGlite, sends one at once when 50 jobs were sent since the last', { timeout: 120_000 }, async () => {
    const times = await notifyTimes(true, async (wake) => {
      wake(1);
      await sleep(10);
      // A write of 60 triggers 10 ms after the last NOTIFY: its own goes out now, not 90 ms later.
      wake(60);
      await sleep(150);
    });
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeLessThan(90);
  });

  it.runIf(process.env.DATABASE_URL)('on PostgreSQL, keeps its 5 ms spacing whatever the jobs', async () => {
    const trickle = await notifyTimes(false, steadily(1, 1, 200));
    expect(trickle.length).toBeGreaterThan(13);
    // Counting jobs is PGlite's: 100 jobs a millisecond still wake no more often than every 5 ms.
    const flood = await notifyTimes(false, steadily(100, 1, 200));
    expect(flood.length).toBeLessThanOrEqual(200 / 5 + 12);
  });
});
