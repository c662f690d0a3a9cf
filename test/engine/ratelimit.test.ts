import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, inbox, settledMessages, trigger, waitFor } from '../support/engine-drivers.js';
import { testClock } from '../support/flow.js';

/** The workflow's ratelimit per recipient (docs/engine.md, "ratelimit"). */
describe('the workflow ratelimit', () => {
  const clock = testClock();
  const t = useTestApp({}, { engine: { engine: { now: clock.now } } });

  async function limitedWorkflow(ws: Awaited<ReturnType<typeof engineWorkspace>>, slug: string, ratelimit: object) {
    const config = configClient(t, ws);
    const saved = await config.postWorkflow(slug, {
      name: slug,
      category: 'order-updates',
      trigger_type: 'api',
      tree: { ratelimit, nodes: [inbox('limited')] },
    });
    expect(saved.statusCode).toBeLessThan(300);
    expect((await config.commitWorkflow(slug)).statusCode).toBe(202);
  }
  const outcome = async (ws: Awaited<ReturnType<typeof engineWorkspace>>, id: string) => {
    const [message] = await settledMessages(t, ws, id, 1);
    return `${message!.status}${message!.reason ? `/${message!.reason}` : ''}`;
  };

  it('records the deliveries of runs over the limit as rate_limited, also with two workers', async () => {
    await t().engineRuntime!.addWorker();
    const ws = await engineWorkspace(t);
    await limitedWorkflow(ws, 'limited', { count: 2, sliding_window: '1h' });
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => trigger(t, ws, { workflow: 'limited', recipients: ['rl-a'] })),
    );
    expect(responses.map((r) => r.statusCode)).toEqual([202, 202, 202, 202, 202, 202]);
    const outcomes = await Promise.all(responses.map((r) => outcome(ws, r.json().message_id)));
    expect(outcomes.filter((o) => o === 'delivered')).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'not_to_be_triggered/rate_limited')).toHaveLength(4);
    // Another recipient has a limit of its own.
    const other = (await trigger(t, ws, { workflow: 'limited', recipients: ['rl-b'] })).json().message_id;
    expect(await outcome(ws, other)).toBe('delivered');
  });

  it('slides: a slot frees once its run left the window', async () => {
    const ws = await engineWorkspace(t);
    await limitedWorkflow(ws, 'sliding', { count: 1, sliding_window: '1m' });
    const fire = async () => (await trigger(t, ws, { workflow: 'sliding', recipients: ['rl-c'] })).json().message_id;
    try {
      expect(await outcome(ws, await fire())).toBe('delivered');
      expect(await outcome(ws, await fire())).toBe('not_to_be_triggered/rate_limited');
      clock.jumpTo(Date.now() + 61_000, 0);
      expect(await outcome(ws, await fire())).toBe('delivered');
    } finally {
      clock.reset();
    }
  });

  it("honours the ratelimit and conditions at the workflow's top level, where the OpenAPI puts them (issue #32 point 5)", async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    const ratelimit = { count: 1, sliding_window: '00d00h01m00s' };
    const conditions = [
      {
        type: 'expression_v1',
        expression_v1: { op: 'AND', args: [{ variable_ns: '', variable: 'go', op: '==', value: 'true' }] },
      },
    ];
    const saved = await config.postWorkflow('top-level', {
      name: 'top-level',
      category: 'order-updates',
      trigger_type: 'api',
      ratelimit,
      conditions,
      tree: { nodes: [inbox('limited')] },
    });
    expect(saved.statusCode).toBe(201);
    expect(saved.json()).toMatchObject({ tree: { ratelimit, conditions } });
    expect((await config.commitWorkflow('top-level')).statusCode).toBe(202);
    // Posted back with the same settings at the top level, a workflow read with GET is unchanged.
    const live = (await config.getWorkflow('top-level', '?mode=live')).json();
    expect(live).toMatchObject({ tree: { ratelimit, conditions } });
    expect((await config.postWorkflow('top-level', { ...live, ratelimit, conditions })).statusCode).toBe(201);

    const fire = async (go: boolean) =>
      (await trigger(t, ws, { workflow: 'top-level', recipients: ['rl-top'], data: { go } })).json().message_id;
    const skipped = await fire(false);
    expect(await outcome(ws, await fire(true))).toBe('delivered');
    expect(await outcome(ws, await fire(true))).toBe('not_to_be_triggered/rate_limited');
    const status = async () =>
      (await t().db.selectFrom('workflow_runs').select('status').where('execution_id', '=', skipped).executeTakeFirst())
        ?.status;
    await waitFor(async () => (await status()) === 'skipped', 10_000, 'the run the conditions skip');
  });

  it('refuses a ratelimit given at the top level and in the tree with different values', async () => {
    const ws = await engineWorkspace(t);
    const answer = await configClient(t, ws).postWorkflow('twice', {
      name: 'twice',
      category: 'order-updates',
      trigger_type: 'api',
      ratelimit: { count: 1, sliding_window: '1m' },
      tree: { ratelimit: { count: 2, sliding_window: '1m' }, nodes: [inbox()] },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toMatchObject({
      message: 'ratelimit is also given as tree.ratelimit, with another value: give it in one place',
    });
    const bad = await configClient(t, ws).postWorkflow('bad-top', {
      name: 'bad-top',
      category: 'order-updates',
      trigger_type: 'api',
      ratelimit: { count: 0, sliding_window: '1m' },
      tree: { nodes: [inbox()] },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('refuses a ratelimit it cannot apply', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    for (const [ratelimit, message] of [
      [{ count: 0, sliding_window: '1h' }, 'tree.ratelimit.count must be a positive integer'],
      [{ count: 1, sliding_window: 'hourly' }, 'tree.ratelimit.sliding_window must be a duration'],
      ['often', 'tree.ratelimit must be an object'],
    ] as const) {
      await config.postWorkflow('bad-limit', {
        name: 'bad-limit',
        category: 'order-updates',
        trigger_type: 'api',
        tree: { ratelimit, nodes: [inbox()] },
      });
      const commit = await config.commitWorkflow('bad-limit');
      expect(commit.statusCode).toBe(400);
      expect(commit.json().message).toContain(message);
    }
  });
});
