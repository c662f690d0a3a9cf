import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired, RETENTION_CRON } from '../../src/engine/retention.js';
import { QUEUES } from '../../src/engine/queue.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { liveTemplate } from '../support/templates.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';
import { testClock } from '../support/flow.js';
import type { WorkspaceFixture } from '../support/fixtures.js';

const DAY = 86_400_000;
const DAYS = 90;

/**
 * RETENTION_DAYS (docs/operations.md, "Retention"): a pass with the clock moved RETENTION_DAYS past a
 * split instant deletes what was made before the split, in batches, and keeps what came after it and
 * what a live run still holds. The database is the file's own: a purge with a moved clock would take
 * other files' rows with it.
 */
describe('retention', () => {
  let database: PrivateDatabase;
  let testApp: TestApp;
  const t = () => testApp;
  const clock = testClock();
  beforeAll(async () => {
    database = await createPrivateDatabase();
    testApp = await buildTestApp(database.url ? { DATABASE_URL: database.url } : {}, {
      engine: { engine: { now: clock.now, retentionDays: DAYS } },
    });
  });
  afterAll(async () => {
    await testApp?.close();
    await database?.drop();
  });

  const count = async (table: string, where = sql`true`) =>
    Number(
      (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${where}`.execute(t().db))
        .rows[0]!.n,
    );
  const inExecutions = (ids: string[]) => sql`execution_id in (${sql.join(ids)})`;

  async function fire(ws: WorkspaceFixture, label: string) {
    const done = [];
    for (const user of [`${label}-a`, `${label}-b`]) {
      const response = await trigger(t, ws, { workflow: 'done', recipients: [user] });
      expect(response.statusCode).toBe(202);
      done.push(response.json().message_id as string);
    }
    for (const id of done) await settledMessages(t, ws, id, 1);
    const event = await baseCall(t, ws)('POST', '/event/', {
      event: 'retained',
      distinct_id: `${label}-a`,
      $insert_id: `${label}-event`,
    });
    expect(event.statusCode).toBeLessThan(300);
    return done;
  }

  it('purges what is older than RETENTION_DAYS in batches, and keeps what is newer and what live runs hold', async () => {
    const ws = await engineWorkspace(t);
    await liveTemplate(t, ws, 'kept', ['inbox']);
    await liveWorkflow(t, ws, 'done', [inbox('kept')], { ratelimit: { count: 100, sliding_window: '1h' } });
    await liveWorkflow(t, ws, 'waits', [node('delay', { duration: '365d' }), inbox('kept')]);

    const old = await fire(ws, 'old');
    const waiting = (await trigger(t, ws, { workflow: 'waits', recipients: ['old-waiter'] })).json()
      .message_id as string;
    await waitFor(
      async () => (await count('workflow_runs', sql`execution_id = ${waiting} and status = 'waiting'`)) === 1,
      10_000,
      'the live run to wait',
    );
    // Every job of the old set has finished before the split.
    await waitFor(
      async () => (await count(`${t().engineRuntime!.schema}.job`, sql`state < 'completed'`)) === 1,
      10_000,
      'the old jobs to finish (the delayed run job stays)',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const split = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const recent = await fire(ws, 'new');

    const before = {
      oldMessages: await count('messages', inExecutions(old)),
      oldJobs: await count(
        `${t().engineRuntime!.schema}.job`,
        sql`state > 'active' and completed_on < ${new Date(split)}`,
      ),
    };
    expect(before.oldMessages).toBe(2);
    expect(before.oldJobs).toBeGreaterThan(0);

    // The clock moved RETENTION_DAYS past the split: what was made before it is older than that.
    const passAfterSplit = (signal?: AbortSignal) =>
      purgeExpired({
        db: t().db,
        queue: t().engineRuntime!.queue,
        now: () => split + DAYS * DAY,
        days: DAYS,
        batchSize: 1,
        signal,
      });
    // A pass whose job was aborted starts no batch, in any table.
    expect(await passAfterSplit(AbortSignal.abort())).toEqual({});
    expect(await count('messages', inExecutions(old))).toBe(2);

    const purged = await passAfterSplit();
    expect(purged).toMatchObject({
      messages: 2,
      runs: 2,
      executions: 2,
      events: 1,
      rate_slots: 2,
      rate_keys: 2,
      queue_jobs: before.oldJobs,
    });
    // Older: gone.
    expect(await count('executions', sql`id in (${sql.join(old)})`)).toBe(0);
    expect(await count('workflow_runs', inExecutions(old))).toBe(0);
    expect(await count('messages', inExecutions(old))).toBe(0);
    expect(await count('events', sql`insert_id = 'old-event'`)).toBe(0);
    expect(await count('workflow_rate_slots', sql`recipient_key like '%old-%'`)).toBe(0);
    expect(
      await count(`${t().engineRuntime!.schema}.job`, sql`state > 'active' and completed_on < ${new Date(split)}`),
    ).toBe(0);
    // Newer: kept.
    expect(await count('executions', sql`id in (${sql.join(recent)})`)).toBe(2);
    expect(await count('messages', inExecutions(recent))).toBe(2);
    expect(await count('events', sql`insert_id = 'new-event'`)).toBe(1);
    expect(await count('workflow_rate_slots')).toBe(2);
    expect(await count(`${t().engineRuntime!.schema}.job`, sql`state > 'active'`)).toBeGreaterThan(0);
    // Live: kept, however old — the waiting run, its trigger and its queued job.
    expect(await count('executions', sql`id = ${waiting}`)).toBe(1);
    expect(await count('workflow_runs', sql`execution_id = ${waiting} and status = 'waiting'`)).toBe(1);
    expect(await count(`${t().engineRuntime!.schema}.job`, sql`state < 'active'`)).toBe(1);

    // A second pass finds nothing more; RETENTION_DAYS=0 keeps everything.
    const again = await purgeExpired({
      db: t().db,
      queue: t().engineRuntime!.queue,
      now: () => split + DAYS * DAY,
      days: DAYS,
    });
    expect(Object.values(again).every((n) => n === 0)).toBe(true);
    expect(
      await purgeExpired({ db: t().db, queue: t().engineRuntime!.queue, now: () => Date.now() + 1000 * DAY, days: 0 }),
    ).toEqual({});
    expect(await count('messages', inExecutions(recent))).toBe(2);
  });

  it('purges delivery-status webhook events older than the cutoff, but never a pending one under 24 hours old', async () => {
    const ws = await engineWorkspace(t);
    const endpoint = `whep_retention_${ws.workspaceId}`;
    await sql`insert into webhook_endpoints (id, workspace_id, url, events, is_active, secret)
      values (${endpoint}, ${ws.workspaceId}, 'https://example.com/hook', '["message.sent"]'::jsonb, false, 'sealed')`.execute(
      t().db,
    );
    const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
    const events: [string, string, Date][] = [
      ['old-delivered', 'delivered', hoursAgo(24 * (DAYS + 10))],
      ['old-failed', 'failed', hoursAgo(24 * (DAYS + 10))],
      ['old-pending', 'pending', hoursAgo(24 * (DAYS + 10))],
      ['new-delivered', 'delivered', hoursAgo(1)],
      ['new-pending', 'pending', hoursAgo(1)],
      ['day-old-pending', 'pending', hoursAgo(25)],
    ];
    for (const [id, status, at] of events)
      await sql`insert into webhook_deliveries (id, workspace_id, endpoint_id, message_id, type, occurred_at, queued_at, status, created_at)
        values (${id}, ${ws.workspaceId}, ${endpoint}, 'msg_none', 'message.sent', ${at}, ${at}, ${status}, ${at})`.execute(
        t().db,
      );
    const left = async () =>
      (
        await sql<{
          id: string;
        }>`select id from webhook_deliveries where endpoint_id = ${endpoint} order by id`.execute(t().db)
      ).rows.map((row) => row.id);
    const pass = (now: number) =>
      purgeExpired({ db: t().db, queue: t().engineRuntime!.queue, now: () => now, days: DAYS, batchSize: 1 });

    // Now: what is older than RETENTION_DAYS goes, finished or not.
    expect((await pass(Date.now())).webhook_deliveries).toBe(3);
    expect(await left()).toEqual(['day-old-pending', 'new-delivered', 'new-pending']);
    // The clock moved far ahead: everything is past the cutoff, but a pending event made less than 24 hours ago
    // (by the database's clock) is still being retried, and stays.
    expect((await pass(Date.now() + 1000 * DAY)).webhook_deliveries).toBe(2);
    expect(await left()).toEqual(['new-pending']);
  });

  it('runs hourly on a pg-boss schedule, and a scheduled job purges with the engine clock', async () => {
    const { queue } = t().engineRuntime!;
    const schedules = await queue.boss.getSchedules(QUEUES.retention);
    expect(schedules).toMatchObject([{ name: QUEUES.retention, cron: RETENTION_CRON, timezone: 'UTC' }]);

    const ws = await engineWorkspace(t);
    const [first] = await (async () => {
      await liveTemplate(t, ws, 'kept', ['inbox']);
      await liveWorkflow(t, ws, 'done', [inbox('kept')]);
      return [(await trigger(t, ws, { workflow: 'done', recipients: ['scheduled'] })).json().message_id as string];
    })();
    await settledMessages(t, ws, first!, 1);
    clock.jumpTo(Date.now() + (DAYS + 1) * DAY);
    try {
      // What the schedule sends: the worker's handler runs a pass with the engine's clock.
      await queue.boss.send(QUEUES.retention, {});
      await waitFor(async () => (await count('executions', sql`id = ${first}`)) === 0, 30_000, 'the scheduled purge');
      expect(await count('messages', sql`execution_id = ${first}`)).toBe(0);
    } finally {
      clock.reset();
    }
  });
});
