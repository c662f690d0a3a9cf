import { describe, expect, it } from 'vitest';
import type { RenderRequest } from '../../src/channels/rendering.js';
import { useTestApp } from '../support/app.js';
import { testRenderer } from '../support/engine.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, inbox, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';
import { makeRunJobsDue, runOf, testClock } from '../support/flow.js';

/**
 * The digest node (docs/engine.md, "digest"). The engine's clock is set a few seconds into a minute
 * ahead of real time, so a minutely digest's period is known; the period's end is reached by moving
 * the clock and making the scheduled job due, never by sleeping.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('the digest node', () => {
  const clock = testClock();
  const rendered: { recipient: string; count: unknown; events: unknown; text: unknown }[] = [];
  const render = async (request: RenderRequest) => {
    const { data, $recipient } = request.context;
    rendered.push({
      recipient: String($recipient.distinct_id),
      count: data.$batched_events_count,
      events: data.$batched_events,
      text: data.text,
    });
    return testRenderer(request);
  };
  const t = useTestApp({}, { engine: { engine: { render, now: clock.now } } });
  const renderedFor = (recipient: string) => rendered.filter((r) => r.recipient === recipient);
  /** Sets the engine's clock 5 s into a minute ahead of real time; returns that minute's end. */
  const startOfPeriod = () => {
    const minute = Math.ceil(Date.now() / MINUTE) * MINUTE;
    clock.jumpTo(minute, 5000);
    return minute + MINUTE;
  };
  const fire = async (
    ws: Awaited<ReturnType<typeof engineWorkspace>>,
    workflow: string,
    recipient: string,
    data = {},
  ) => {
    const response = await trigger(t, ws, { workflow, recipients: [recipient], data });
    expect(response.statusCode).toBe(202);
    return response.json().message_id as string;
  };
  const settledRun = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run && run.status !== 'running' ? run : undefined;
    });
  const minutely = (extra: Record<string, unknown> = {}) =>
    node('digest', { schedule_type: 'static', schedule: { frequency: 'minutely', interval: 1 }, ...extra });

  it('gathers a period of triggers and sends them once at the scheduled time', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'minutely', [minutely({ retain_count: 2 }), inbox('digest')]);
    const periodEnd = startOfPeriod();
    try {
      const ids: string[] = [];
      for (const text of ['a', 'b', 'c']) ids.push(await fire(ws, 'minutely', 'dg-a', { text }));
      // Workers take the triggers in any order: whichever joined first waits, the others are absorbed.
      const runs = await Promise.all(ids.map(settledRun));
      expect(runs.map((r) => r.status).sort()).toEqual(['batched', 'batched', 'waiting']);
      const first = runs.find((r) => r.status === 'waiting')!;
      expect(first.resume_at!.getTime()).toBe(periodEnd);
      expect(renderedFor('dg-a')).toEqual([]);

      clock.jumpTo(periodEnd);
      expect(await makeRunJobsDue(t, first.id)).toBe(1);
      await waitFor(async () => renderedFor('dg-a').length === 1);
      expect(renderedFor('dg-a')[0]).toEqual({
        recipient: 'dg-a',
        count: 3,
        events: [{ text: 'b' }, { text: 'c' }],
        text: 'c',
      });
      await waitFor(async () => (await runOf(t, ids[runs.indexOf(first)]!))?.status === 'completed');

      // A trigger still inside the period (by the clock) after it was sent goes to the next one.
      clock.jumpTo(periodEnd, -2000);
      const late = await fire(ws, 'minutely', 'dg-a', { text: 'late' });
      const lateRun = await settledRun(late);
      expect(lateRun.status).toBe('waiting');
      expect(lateRun.resume_at!.getTime()).toBe(periodEnd + MINUTE);
    } finally {
      clock.reset();
    }
  });

  it('still sends the triggers not cancelled when the run that waits for the digest is cancelled', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'cancel-digest', [minutely(), inbox('digest')]);
    const periodEnd = startOfPeriod();
    try {
      const ids: string[] = [];
      for (const text of ['a', 'b', 'c', 'd']) ids.push(await fire(ws, 'cancel-digest', 'dg-e', { text }));
      const runs = await Promise.all(ids.map(settledRun));
      const waiter = runs.find((r) => r.status === 'waiting')!;
      const waiterExecution = ids[runs.indexOf(waiter)]!;
      const absorbed = ids.filter((id) => id !== waiterExecution);
      const call = (body: object) =>
        t().app.inject({ method: 'POST', url: '/v1/workflow_run/cancel/', headers: ws.base, payload: body });
      expect((await call({ execution_id: waiterExecution })).statusCode).toBe(200);
      // An absorbed trigger cancelled too leaves the digest.
      expect((await call({ execution_id: absorbed[0] })).statusCode).toBe(200);
      const kept = await Promise.all(absorbed.slice(1).map(async (id) => (await runOf(t, id))!));

      clock.jumpTo(periodEnd);
      expect(await makeRunJobsDue(t, waiter.id)).toBe(1);
      // The earliest trigger still in takes the digest over and waits for its time.
      const heir = await waitFor(async () => {
        const rows = await t()
          .db.selectFrom('workflow_runs')
          .select(['id', 'status', 'resume_at'])
          .where(
            'id',
            'in',
            kept.map((r) => r.id),
          )
          .where('status', '=', 'waiting')
          .execute();
        return rows[0];
      });
      expect(heir.resume_at!.getTime()).toBe(periodEnd);
      expect(await makeRunJobsDue(t, heir.id)).toBe(1);
      await waitFor(async () => renderedFor('dg-e').length === 1);
      const texts = ['a', 'b', 'c', 'd'];
      const keptTexts = ids.flatMap((id, n) => (id === waiterExecution || id === absorbed[0] ? [] : [texts[n]]));
      // Workers may take the triggers in any order: the digest lists the kept ones in its own order.
      const sent = renderedFor('dg-e')[0]!;
      expect(sent.count).toBe(2);
      expect((sent.events as { text: string }[]).map((e) => e.text).sort()).toEqual(keptTexts);
      expect(keptTexts).toContain(sent.text);
      expect((await runOf(t, waiterExecution))?.status).toBe('cancelled');
    } finally {
      clock.reset();
    }
  });

  it('sends nothing when every trigger of a digest was cancelled', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'all-cancelled', [minutely(), inbox('digest')]);
    const periodEnd = startOfPeriod();
    try {
      const ids = [await fire(ws, 'all-cancelled', 'dg-f'), await fire(ws, 'all-cancelled', 'dg-f')];
      const runs = await Promise.all(ids.map(settledRun));
      const waiter = runs.find((r) => r.status === 'waiting')!;
      const cancel = await t().app.inject({
        method: 'POST',
        url: '/v1/workflow_run/cancel/',
        headers: ws.base,
        payload: { workflow_slug: 'all-cancelled' },
      });
      expect(cancel.json().execution_ids).toHaveLength(2);
      clock.jumpTo(periodEnd);
      expect(await makeRunJobsDue(t, waiter.id)).toBe(1);
      await waitFor(async () => {
        const digest = await t()
          .db.selectFrom('workflow_batches')
          .select('status')
          .where('workspace_id', '=', ws.workspaceId)
          .where('recipient_key', '=', 'user:dg-f')
          .executeTakeFirst();
        return digest?.status === 'closed';
      });
      expect(renderedFor('dg-f')).toEqual([]);
    } finally {
      clock.reset();
    }
  });

  it('skips a digest with fewer triggers than trigger_min_count', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'min-three', [minutely({ trigger_min_count: 3 }), inbox('digest')]);
    const periodEnd = startOfPeriod();
    try {
      const ids = [await fire(ws, 'min-three', 'dg-b'), await fire(ws, 'min-three', 'dg-b')];
      const runs = await Promise.all(ids.map(settledRun));
      const first = runs.find((r) => r.status === 'waiting')!;
      clock.jumpTo(periodEnd);
      expect(await makeRunJobsDue(t, first.id)).toBe(1);
      await waitFor(async () => (await runOf(t, ids[runs.indexOf(first)]!))?.status === 'skipped');
      expect(renderedFor('dg-b')).toEqual([]);
    } finally {
      clock.reset();
    }
  });

  it('fires at calendar time in the recipient zone, and reads a dynamic schedule from the data', async () => {
    const ws = await engineWorkspace(t);
    await t().app.inject({
      method: 'POST',
      url: '/v1/user/dg-c/',
      headers: ws.base,
      payload: { $timezone: 'Asia/Kolkata' },
    });
    await liveWorkflow(t, ws, 'daily', [
      node('digest', { schedule: { frequency: 'daily', time: '09:00', tz_selection: 'recipient' } }),
      inbox('daily'),
    ]);
    await liveWorkflow(t, ws, 'chosen', [
      node('digest', { schedule_type: 'dynamic', dynamic_schedule_expr: '.sched' }),
      inbox('chosen'),
    ]);
    const now = Date.now();
    const next = (utcMs: number) => {
      const today = Math.floor(now / DAY) * DAY + utcMs;
      return today > now ? today : today + DAY;
    };
    // 09:00 in Kolkata is 03:30 UTC; 18:00 in New York is 23:00 UTC in late November and December.
    const daily = await settledRun(await fire(ws, 'daily', 'dg-c'));
    expect(daily.resume_at!.getTime()).toBe(next(3.5 * 3_600_000));
    const chosen = await settledRun(
      await fire(ws, 'chosen', 'dg-c', {
        sched: { frequency: 'daily', time: '18:00', tz_selection: 'fixed', tz_fixed: 'America/New_York' },
      }),
    );
    expect(chosen.resume_at!.getTime()).toBe(next(23 * 3_600_000));
  });

  it('refuses a schedule it cannot read, naming the field', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    const refusal = async (fields: Record<string, unknown>) => {
      await config.postWorkflow('bad-digest', {
        name: 'bad-digest',
        category: 'order-updates',
        trigger_type: 'api',
        tree: { nodes: [node('digest', fields), inbox()] },
      });
      const commit = await config.commitWorkflow('bad-digest');
      expect(commit.statusCode).toBe(400);
      return commit.json().message as string;
    };
    expect(await refusal({ schedule: { frequency: 'yearly' } })).toContain(
      'tree.nodes[0] (digest): schedule.frequency',
    );
    expect(await refusal({ schedule: { frequency: 'daily', time: '9' } })).toContain('schedule.time must be a time');
    expect(await refusal({ schedule: { frequency: 'daily', tz_fixed: 'Nowhere/City' } })).toContain('tz_fixed');
    expect(await refusal({ schedule_type: 'dynamic', dynamic_schedule_expr: 'sched' })).toContain(
      'dynamic_schedule_expr',
    );
    expect(await refusal({ schedule: { frequency: 'daily' }, trigger_min_count: 0 })).toContain('trigger_min_count');
  });

  it('fires once for simultaneous triggers on two workers, and after every worker was stopped', async () => {
    await t().engineRuntime!.addWorker();
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'burst-digest', [minutely(), inbox('burst')]);
    const periodEnd = startOfPeriod();
    const ids = await Promise.all(Array.from({ length: 10 }, (_, n) => fire(ws, 'burst-digest', 'dg-d', { n })));
    const runs = await Promise.all(ids.map(settledRun));
    expect(runs.filter((r) => r.status === 'waiting')).toHaveLength(1);
    expect(runs.filter((r) => r.status === 'batched')).toHaveLength(9);
    const waiting = runs.find((r) => r.status === 'waiting')!;
    const digests = await t()
      .db.selectFrom('workflow_batches')
      .select(['event_count', 'closes_at'])
      .where('kind', '=', 'digest')
      .where('workspace_id', '=', ws.workspaceId)
      .where('recipient_key', '=', 'user:dg-d')
      .execute();
    expect(digests).toEqual([{ event_count: 10, closes_at: new Date(periodEnd) }]);

    clock.jumpTo(periodEnd);
    expect(await makeRunJobsDue(t, waiting.id)).toBe(1);
    await t().engineRuntime!.restart(1500);
    await waitFor(async () => renderedFor('dg-d').length === 1, 15_000, 'the digest after the restart');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(renderedFor('dg-d')).toHaveLength(1);
    expect(renderedFor('dg-d')[0]!.count).toBe(10);
    clock.reset();
  });
});
