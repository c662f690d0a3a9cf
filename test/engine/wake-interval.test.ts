import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { QUEUES, Queue } from '../../src/engine/queue.js';

/**
 * The trigger queue's wake-ups are spaced by engine (src/engine/queue.ts): at most one NOTIFY per 5 ms on
 * PostgreSQL, per 20 ms on PGlite, where the API and the worker share one thread and a worker woken more
 * often fetches batches of one trigger. Only the timing differs: the statement is the same.
 */

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function notifyTimes(embedded: boolean) {
  const times: number[] = [];
  const url = embedded ? undefined : process.env.DATABASE_URL;
  const { db, pglite } = createDatabase({
    url,
    dataDir: 'memory://',
    onQuery: (event) => void (/pg_notify/.test(event.query.sql) && times.push(Date.now())),
  });
  closing.push(() => db.destroy());
  const queue = new Queue({ url, pglite });
  // The database ready first (a new PGlite takes seconds to start under load), so the window measures the wakes.
  await sql`select 1`.execute(db);
  times.length = 0;
  const started = Date.now();
  while (Date.now() - started < 200) {
    queue.wake(db, QUEUES.trigger);
    await sleep(1);
  }
  await sleep(100);
  return times;
}

describe('waking the trigger queue', () => {
  // Its own PGlite, whichever engine the suite runs on (starting it takes tens of seconds on a loaded machine).
  it('on PGlite, sends at most one NOTIFY per 20 ms however often it is asked', { timeout: 120_000 }, async () => {
    const times = await notifyTimes(true);
    expect(times.length).toBeGreaterThanOrEqual(2);
    // 200 ms of wakes every millisecond: about ten NOTIFYs at 20 ms, about forty at 5.
    expect(times.length).toBeLessThanOrEqual(13);
  });

  it.runIf(process.env.DATABASE_URL)('on PostgreSQL, keeps its 5 ms spacing', async () => {
    const times = await notifyTimes(false);
    expect(times.length).toBeGreaterThan(13);
  });
});
