import { sql } from 'kysely';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { Queue, QUEUES } from '../../src/engine/queue.js';
import { waitFor } from '../support/engine-drivers.js';

/**
 * The queue shares the database with Herald's own transactions: a job exists exactly when the
 * transaction that sent it committed. Commits, rollbacks and failing statements race workers that
 * take the jobs; no job may come from a rolled-back transaction (a phantom), none may be handled
 * twice, none may be lost, and no rolled-back row may survive.
 */
describe('the durable queue inside Herald transactions', () => {
  const url = process.env.DATABASE_URL;
  let handle: DatabaseHandle;
  let queue: Queue;
  const schema = url ? `pgboss_t_${ulid().toLowerCase()}` : 'pgboss';
  const table = `queue_probe_${ulid().toLowerCase()}`;

  beforeAll(async () => {
    handle = createDatabase({ url, dataDir: 'memory://', poolSize: 10 });
    if (handle.kind === 'embedded') await migrateToLatest(handle.db);
    await sql`create table ${sql.id(table)} (id integer primary key)`.execute(handle.db);
    queue = new Queue({ url, pglite: handle.pglite, schema, pollingIntervalSeconds: 0.5, poolSize: 4 });
    await queue.start();
  });

  afterAll(async () => {
    await queue.stop(5000);
    await sql`drop table if exists ${sql.id(table)}`.execute(handle.db);
    if (url) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
    await handle.db.destroy();
  });

  it('delivers every committed job once and no job of a rolled-back transaction', async () => {
    const handled: number[] = [];
    const phantoms: number[] = [];
    const errors: string[] = [];
    queue.onError((error) => errors.push(error.message));
    await queue.work<{ id: number }>(QUEUES.fanout, { batchSize: 5, localConcurrency: 3 }, async (jobs) => {
      for (const job of jobs) {
        const row = await handle.db
          .selectFrom(table as never)
          .select(sql`id`.as('id'))
          .where(sql`id`, '=', job.data.id)
          .executeTakeFirst();
        if (!row) phantoms.push(job.data.id);
        handled.push(job.data.id);
      }
    });

    const TOTAL = 200;
    const outcomes = await Promise.allSettled(
      Array.from({ length: TOTAL }, (_, id) =>
        handle.db.transaction().execute(async (trx) => {
          await sql`insert into ${sql.id(table)} (id) values (${id})`.execute(trx);
          await queue.send(trx, QUEUES.fanout, { id });
          if (id % 3 === 1) throw new Error('the caller changed its mind');
          // A failing statement after the send: the transaction is aborted and rolls back.
          if (id % 3 === 2) await sql`select 1 / 0`.execute(trx);
        }),
      ),
    );
    const committed = outcomes.flatMap((outcome, id) => (outcome.status === 'fulfilled' ? [id] : []));
    expect(committed).toEqual(Array.from({ length: TOTAL }, (_, id) => id).filter((id) => id % 3 === 0));

    await waitFor(async () => handled.length >= committed.length, 20_000, 'every committed job').catch((error) => {
      throw new Error(
        `${error.message}: handled ${handled.length} of ${committed.length}, errors ${errors.join('; ')}`,
      );
    });
    // Time for any phantom or duplicate to show up.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(phantoms).toEqual([]);
    expect([...handled].sort((a, b) => a - b)).toEqual(committed);
    const rows = await sql<{ id: number }>`select id from ${sql.id(table)} order by id`.execute(handle.db);
    expect(rows.rows.map((row) => row.id)).toEqual(committed);
  });

  it('makes the trigger queue without NOTIFY on insert, and turns it off in a queue made before', async () => {
    expect((await queue.boss.getQueue(QUEUES.trigger))?.notify).toBe(false);
    expect((await queue.boss.getQueue(QUEUES.fanout))?.notify).toBe(true);
    // An install whose trigger queue still notifies, as every queue did before the senders woke the workers.
    await queue.boss.updateQueue(QUEUES.trigger, { notify: true });
    const again = new Queue({ url, pglite: handle.pglite, schema, pollingIntervalSeconds: 0.5, poolSize: 2 });
    await again.start();
    try {
      expect((await again.boss.getQueue(QUEUES.trigger))?.notify).toBe(false);
      expect((await again.boss.getQueue(QUEUES.fanout))?.notify).toBe(true);
    } finally {
      await again.stop(5000);
    }
  });
});
