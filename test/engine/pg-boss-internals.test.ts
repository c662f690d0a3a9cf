import { CompiledQuery, sql } from 'kysely';
import { notifyChannelSql } from 'pg-boss/dist/plans.js';
import { ulid } from 'ulid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { channelQuery } from '../../src/engine/pg-boss-internals.js';
import { Queue, QUEUES } from '../../src/engine/queue.js';

/** Each assumption src/engine/pg-boss-internals.ts makes of the pinned pg-boss, checked against it. */
describe('what Herald assumes of pg-boss', () => {
  const url = process.env.DATABASE_URL;
  let handle: DatabaseHandle;
  let queue: Queue;
  const schema = url ? `pgboss_i_${ulid().toLowerCase()}` : 'pgboss';
  const table = `boss_probe_${ulid().toLowerCase()}`;

  beforeAll(async () => {
    handle = createDatabase({ url, dataDir: 'memory://', poolSize: 4 });
    if (handle.kind === 'embedded') await migrateToLatest(handle.db);
    await sql`create table ${sql.id(table)} (id integer primary key, note text)`.execute(handle.db);
    queue = new Queue({ url, pglite: handle.pglite, schema, pollingIntervalSeconds: 0.5, poolSize: 2 });
    await queue.start();
  });

  afterAll(async () => {
    await queue.stop(5000);
    await sql`drop table if exists ${sql.id(table)}`.execute(handle.db);
    if (url) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
    await handle.db.destroy();
  });

  it('1. wakes the workers on the channel pg-boss listens on for the schema', async () => {
    const theirs = await sql<{ channel: string }>`select ${sql.raw(notifyChannelSql(schema))} as channel`.execute(
      handle.db,
    );
    const ours = await handle.db.executeQuery<{ channel: string }>(channelQuery(schema));
    expect(ours.rows[0]!.channel).toBe(theirs.rows[0]!.channel);
  });

  it('2. takes a statement ahead of its insert as a CTE, parameters renumbered: both land, atomically', async () => {
    const first = CompiledQuery.raw(`insert into ${table} (id, note) values ($1, $2) returning id`, [7, 'first']);
    await queue.sendManyWith(
      handle.db,
      QUEUES.fanout,
      [{ data: { probe: table }, options: { id: 'f1d5a0a4-0000-8000-8000-00000000e001' } }],
      first,
    );
    const rows = await sql<{ note: string }>`select note from ${sql.id(table)}`.execute(handle.db);
    expect(rows.rows).toEqual([{ note: 'first' }]);
    const jobs = await sql<{ data: { probe: string } }>`select data from ${sql.id(schema)}.job
      where id = 'f1d5a0a4-0000-8000-8000-00000000e001'`.execute(handle.db);
    expect(jobs.rows).toEqual([{ data: { probe: table } }]);
  });
});
