import { describe, expect, it, vi } from 'vitest';
import { useTestApp, type TestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { engineWorkspace, inbox, liveWorkflow, newExecution, triggerJobsOf } from '../support/engine-drivers.js';
import { runOf } from '../support/flow.js';
import { QUEUES } from '../../src/engine/queue.js';
import { MAX_TRIGGER_GROUP, triggerJob } from '../../src/engine/trigger-jobs.js';
import { TriggerWriter } from '../../src/engine/trigger-writer.js';
import { newUlid } from '../../src/ids.js';

/**
 * Plain triggers of concurrent requests are written together (src/engine/trigger-writer.ts), with one
 * trigger job per group of their executions (src/engine/trigger-jobs.ts), and the trigger queue's
 * inserts NOTIFY no one: the writer wakes the workers after its statement, a transaction with its last
 * statement (src/engine/queue.ts, WOKEN_BY_SENDER).
 */

const send = (t: TestApp, ws: WorkspaceFixture, body: object) =>
  t.app.inject({ method: 'POST', url: '/trigger/', headers: ws.base, payload: body });
const WRITE = /^with herald_first as \(insert into executions/;
const onPostgres = Boolean(process.env.DATABASE_URL);

async function until(check: () => Promise<boolean>, ms: number) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

/** Each execution in exactly one trigger job: how many jobs there are. */
const jobsOf = async (t: TestApp, executionIds: string[]) => {
  const rows = await triggerJobsOf(t, executionIds);
  expect(rows.map((row) => row.execution_id).sort()).toEqual([...executionIds].sort());
  return new Set(rows.map((row) => row.id)).size;
};

describe('the workers are woken by the trigger, not by their poll', () => {
  // A poll every 30 s: a run started within seconds was woken by the NOTIFY.
  const t = useTestApp({}, { engine: { queue: { pollingIntervalSeconds: 30 } } });

  it('starts a plain trigger and one in a transaction (an idempotency key) within seconds', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'woken', [inbox()]);
    // The worker's first fetch, at its start, may still be under way: a first trigger lets it settle.
    const first = await send(t(), ws, { workflow: 'woken', recipients: ['warm'], data: {} });
    expect(first.statusCode).toBe(202);
    await until(async () => (await runOf(t, first.json().message_id as string)) !== undefined, 35_000);

    for (const extra of [{}, { $idempotency_key: `woken-${newUlid()}` }]) {
      const accepted = await send(t(), ws, { workflow: 'woken', recipients: ['ada'], data: {}, ...extra });
      expect(accepted.statusCode).toBe(202);
      const executionId = accepted.json().message_id as string;
      expect(await until(async () => (await runOf(t, executionId)) !== undefined, 5_000)).toBe(true);
    }
  }, 60_000);
});

describe('plain triggers of concurrent requests: one statement for many', () => {
  const t = useTestApp({}, { engine: { worker: false } });

  it('accepts 40 concurrent triggers in far fewer statements, every execution with its job', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'together', [inbox()]);
    expect((await send(t(), ws, { workflow: 'together', recipients: ['warm'], data: {} })).statusCode).toBe(202);
    t().queries.reset();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send(t(), ws, { workflow: 'together', recipients: [`u-${i}`], data: { i } }),
      ),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(40).fill(202));
    const ids = answers.map((a) => a.json().message_id as string);
    expect(new Set(ids).size).toBe(40);
    // On PostgreSQL requests gather while a write is on its way; on PGlite, which runs a write as soon
    // as it is sent, the writes of the requests read in one turn of the event loop go out at its end.
    const writes = t().queries.sql.filter((text) => WRITE.test(text)).length;
    expect(writes).toBeGreaterThanOrEqual(1);
    expect(writes).toBeLessThanOrEqual(10);
    const stored = await t()
      .db.selectFrom('executions')
      .select(['id', 'data', 'recipients', 'workspace_id'])
      .where('id', 'in', ids)
      .execute();
    expect(stored).toHaveLength(40);
    for (const row of stored) {
      const i = ids.indexOf(row.id);
      expect(row).toMatchObject({ data: { i }, workspace_id: ws.workspaceId });
      expect(row.recipients).toEqual([expect.objectContaining({ distinctId: `u-${i}` })]);
    }
    // One trigger job per statement, however many executions it carried.
    expect(await jobsOf(t(), ids)).toBe(writes);
  });

  const executionIn = (workspaceId: number) => ({
    ...newExecution({ workflow_slug: 'grouped', data: { n: 1 } }),
    workspace_id: workspaceId,
  });
  /** Writes of one execution each, all asked for in the same tick. */
  const writeAll = (writer: TriggerWriter, workspaceIds: number[]) => {
    const batches = workspaceIds.map((workspaceId) => [executionIn(workspaceId)]);
    const outcomes = Promise.allSettled(
      batches.map((batch) =>
        writer.write(
          batch,
          batch.map((e) => triggerJob(e.workspace_id, e.id)),
        ),
      ),
    );
    return { ids: batches.map((batch) => batch[0]!.id), outcomes };
  };

  it('sends two writes at once and gathers the rest into the next statement (PGlite: all at the end of the turn)', async () => {
    const ws = await engineWorkspace(t);
    const writer = new TriggerWriter(t().db, t().engineRuntime!.queue);
    t().queries.reset();
    const { ids, outcomes } = writeAll(writer, Array(6).fill(ws.workspaceId));
    expect((await outcomes).map((o) => o.status)).toEqual(Array(6).fill('fulfilled'));
    // PostgreSQL: two alone (one being committed while the next gathers), then the four that waited
    // together. PGlite: the six asked for in this turn, in one statement at its end.
    expect(t().queries.sql.filter((text) => WRITE.test(text))).toHaveLength(onPostgres ? 3 : 1);
    expect(await t().db.selectFrom('executions').select('id').where('id', 'in', ids).execute()).toHaveLength(6);
    // A job per statement: the four that waited share one (PGlite: the six share one).
    expect(await jobsOf(t(), ids)).toBe(onPostgres ? 3 : 1);
  });

  it('wakes the trigger queue with the number of executions each statement wrote (PGlite wakes at once for 50)', async () => {
    const ws = await engineWorkspace(t);
    const queue = t().engineRuntime!.queue;
    const writer = new TriggerWriter(t().db, queue);
    const wake = vi.spyOn(queue, 'wake');
    try {
      const { outcomes } = writeAll(writer, Array(6).fill(ws.workspaceId));
      await outcomes;
      // A wake of 0 jobs is the queue's own: the one it owes a call that came while a NOTIFY was in flight.
      const woken = wake.mock.calls
        .filter(([, name, jobs]) => name === QUEUES.trigger && jobs !== 0)
        .map(([, , jobs]) => jobs ?? 1);
      // PostgreSQL: three statements (1, 1, 4); PGlite: one of six.
      expect(woken.sort()).toEqual(onPostgres ? [1, 1, 4] : [6]);
    } finally {
      wake.mockRestore();
    }
  });

  it('cuts a group’s jobs at MAX_TRIGGER_GROUP executions of one workspace; a job that starts later stays its own', async () => {
    const ws = await engineWorkspace(t);
    const other = await engineWorkspace(t);
    const writer = new TriggerWriter(t().db, t().engineRuntime!.queue);
    const now = Array.from({ length: 2 * MAX_TRIGGER_GROUP + 1 }, () => executionIn(ws.workspaceId));
    const elsewhere = [executionIn(other.workspaceId), executionIn(other.workspaceId)];
    const later = executionIn(ws.workspaceId);
    const all = [...now, ...elsewhere, later];
    await writer.write(
      all,
      [...now, ...elsewhere]
        .map((e) => triggerJob(e.workspace_id, e.id))
        .concat(triggerJob(ws.workspaceId, later.id, new Date(Date.now() + 3_600_000))),
    );
    const rows = await triggerJobsOf(
      t(),
      all.map((e) => e.id),
    );
    expect(rows).toHaveLength(all.length);
    const sizes = new Map(rows.map((row) => [row.id, row.executions]));
    expect([...sizes.values()].sort((a, b) => a - b)).toEqual([1, 1, 2, MAX_TRIGGER_GROUP, MAX_TRIGGER_GROUP]);
    const jobOf = (id: string) => rows.find((row) => row.execution_id === id)!.id;
    expect(jobOf(elsewhere[0]!.id)).toBe(jobOf(elsewhere[1]!.id));
    expect(now.map((e) => jobOf(e.id))).not.toContain(jobOf(elsewhere[0]!.id));
    const delayed = rows.find((row) => row.execution_id === later.id)!;
    expect(delayed.executions).toBe(1);
    expect(delayed.start_after.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
  });

  it('writes under a test that faked the timers after Herald started (PGlite waits for the end of the turn)', async () => {
    const ws = await engineWorkspace(t);
    const writer = new TriggerWriter(t().db, t().engineRuntime!.queue);
    vi.useFakeTimers();
    try {
      const { ids, outcomes } = writeAll(writer, Array(3).fill(ws.workspaceId));
      expect((await outcomes).map((o) => o.status)).toEqual(Array(3).fill('fulfilled'));
      // Each execution in one job: a job per statement (PGlite: the three in one).
      expect(await jobsOf(t(), ids)).toBe(onPostgres ? 3 : 1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes a failing group again batch by batch: only the failing batch is refused', async () => {
    const ws = await engineWorkspace(t);
    const writer = new TriggerWriter(t().db, t().engineRuntime!.queue);
    t().queries.reset();
    // The group of the four that wait holds one execution of a workspace that does not exist.
    const { ids, outcomes } = writeAll(writer, [
      ws.workspaceId,
      ws.workspaceId,
      ws.workspaceId,
      -1,
      ws.workspaceId,
      ws.workspaceId,
    ]);
    const settled = await outcomes;
    expect(settled.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect(String((settled[3] as PromiseRejectedResult).reason)).toMatch(/foreign key/);
    // Statements that succeeded (Kysely logs those): PostgreSQL, the two alone, then the group's three
    // good batches one by one; PGlite, the group of six failed, then its five good batches one by one.
    expect(t().queries.sql.filter((text) => WRITE.test(text))).toHaveLength(5);
    const good = ids.filter((_, i) => i !== 3);
    expect(await t().db.selectFrom('executions').select('id').where('id', 'in', ids).execute()).toHaveLength(5);
    expect(await jobsOf(t(), good)).toBe(5);
    expect(await triggerJobsOf(t(), [ids[3]!])).toEqual([]);
  });
});
