import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  messages,
  node,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';
import { makeRunJobsDue, runOf, testClock } from '../support/flow.js';

/**
 * branch_waituntil (docs/engine.md, "branch_waituntil"): a later POST /event/ of the same recipient
 * resumes the waiting run into the event branch; else the timeout branch, reached here by moving the
 * engine's clock and making the scheduled job due.
 */
describe('the branch_waituntil node', () => {
  const clock = testClock();
  const t = useTestApp({}, { engine: { engine: { now: clock.now } } });
  let insert = 0;
  const track = (
    ws: Awaited<ReturnType<typeof engineWorkspace>>,
    distinct_id: string,
    event: string,
    properties = {},
  ) => baseCall(t, ws)('POST', '/event/', { event, distinct_id, properties, $insert_id: `wu-${++insert}` });
  const waitUntil = (timeout = '10m') =>
    node('branch_waituntil', {
      branches: [
        {
          name: 'shipped',
          conditions: [
            {
              type: 'future_event',
              event_name: 'order_shipped',
              event_conditions: [
                { variable_ns: '$future_event', variable: 'order_id', op: '==', value: '"o1"' },
                { variable_ns: '', variable: 'plan', op: '!=', value: '"free"' },
              ],
            },
          ],
          nodes: [inbox('shipped')],
        },
        {
          name: 'timeout',
          is_default: true,
          conditions: [{ type: 'delay', delay_properties: { delay_type: 'fixed', value: timeout } }],
          nodes: [inbox('reminder')],
        },
      ],
    });
  const texts = async (ws: Awaited<ReturnType<typeof engineWorkspace>>, id: string, count: number) =>
    waitFor(async () => {
      const page = await messages(t, ws, `?execution_id=${id}`);
      const settled = page.results.filter((m) => m.status === 'delivered');
      return settled.length >= count ? settled.map((m) => m.content.text).sort() : undefined;
    });
  const waitingRun = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run?.status === 'waiting' ? run : undefined;
    });

  it("resumes on the recipient's matching event, not on another's or a non-matching one", async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'ship', [waitUntil(), inbox('after')]);
    // An event tracked before the run enters the node does not count.
    expect((await track(ws, 'wu-a', 'order_shipped', { order_id: 'o1' })).statusCode).toBe(202);
    const id = (await trigger(t, ws, { workflow: 'ship', recipients: ['wu-a'], data: { plan: 'pro' } })).json()
      .message_id;
    const run = await waitingRun(id);

    await track(ws, 'wu-other', 'order_shipped', { order_id: 'o1' });
    await track(ws, 'wu-a', 'order_shipped', { order_id: 'o2' });
    await track(ws, 'wu-a', 'order_cancelled', { order_id: 'o1' });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await runOf(t, id))!.status).toBe('waiting');
    expect((await messages(t, ws, `?execution_id=${id}`)).results).toEqual([]);

    await track(ws, 'wu-a', 'order_shipped', { order_id: 'o1', carrier: 'ups' });
    expect(await texts(ws, id, 2)).toEqual(['after on inbox', 'shipped on inbox']);
    const done = await waitFor(async () => {
      const r = await runOf(t, id);
      return r?.status === 'completed' ? r : undefined;
    });
    expect(done.data).toMatchObject({ $future_event: { order_id: 'o1', carrier: 'ups' } });
    expect(run.id).toBe(done.id);
  });

  it('takes the timeout branch when no matching event came in time', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'remind', [waitUntil('10m'), inbox('after')]);
    const entered = Date.now();
    const id = (await trigger(t, ws, { workflow: 'remind', recipients: ['wu-b'], data: { plan: 'pro' } })).json()
      .message_id;
    const run = await waitingRun(id);
    expect(run.resume_at!.getTime()).toBeGreaterThanOrEqual(entered + 600_000);
    expect(run.resume_at!.getTime()).toBeLessThan(Date.now() + 600_000);
    // An event whose other condition fails (the run's plan, changed here) wakes the run, which waits on.
    await t()
      .db.updateTable('workflow_runs')
      .set({ data: { plan: 'free' } })
      .where('id', '=', run.id)
      .execute();
    await track(ws, 'wu-b', 'order_shipped', { order_id: 'o1' });
    await waitFor(async () => {
      const r = await runOf(t, id);
      return (
        r?.status === 'waiting' && r.resume_at!.getTime() === run.resume_at!.getTime() && r.updated_at > run.updated_at
      );
    });
    try {
      clock.jumpTo(run.resume_at!.getTime());
      await makeRunJobsDue(t, run.id);
      expect(await texts(ws, id, 2)).toEqual(['after on inbox', 'reminder on inbox']);
    } finally {
      clock.reset();
    }
  });

  it('refuses a wait it cannot run, naming the branch', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    const refusal = async (branches: unknown) => {
      await config.postWorkflow('bad-wait', {
        name: 'bad-wait',
        category: 'order-updates',
        trigger_type: 'api',
        tree: { nodes: [node('branch_waituntil', { branches })] },
      });
      const commit = await config.commitWorkflow('bad-wait');
      expect(commit.statusCode).toBe(400);
      return commit.json().message as string;
    };
    const timeout = { name: 't', is_default: true, conditions: [{ type: 'delay', delay_properties: { value: '1h' } }] };
    expect(await refusal([timeout])).toContain('tree.nodes[0] (branch_waituntil): branches must hold two branches');
    expect(await refusal([{ name: 'e', conditions: [{ type: 'future_event' }] }, timeout])).toContain(
      'future_event needs an event_name',
    );
    expect(
      await refusal([
        { name: 'e', conditions: [{ type: 'future_event', event_name: 'x' }] },
        { name: 't', conditions: [{ type: 'delay', delay_properties: { value: 'later' } }] },
      ]),
    ).toContain('branches[1] delay_properties: value must be a duration');
    expect(
      await refusal([
        { name: 'e', conditions: [{ type: 'future_event', event_name: 'x' }], nodes: [node('made_up')] },
        timeout,
      ]),
    ).toContain("tree.nodes[0].branches[0].nodes[0] (made_up): node type 'made_up' is not supported");
  });

  it('times out after every worker was stopped past the timeout', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'outage-wait', [waitUntil('5m')]);
    const id = (await trigger(t, ws, { workflow: 'outage-wait', recipients: ['wu-c'] })).json().message_id;
    const run = await waitingRun(id);
    clock.jumpTo(run.resume_at!.getTime());
    expect(await makeRunJobsDue(t, run.id)).toBe(1);
    await t().engineRuntime!.restart(1500);
    expect(await texts(ws, id, 1)).toEqual(['reminder on inbox']);
  });
});
