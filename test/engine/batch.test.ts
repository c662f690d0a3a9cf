import { describe, expect, it } from 'vitest';
import type { RenderRequest } from '../../src/channels/rendering.js';
import { newUlid } from '../../src/ids.js';
import { addBatchItem, joinBatch } from '../../src/repositories/batches.js';
import { useTestApp } from '../support/app.js';
import { testRenderer } from '../support/engine.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, inbox, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';
import { runOf } from '../support/flow.js';

/**
 * The batch node (docs/engine.md, "batch"): triggers of one recipient and batch key gather while the
 * window is open and go on as one run. Windows are a second or two of real time: the wait is a
 * scheduled job of the queue, as in production.
 */

interface Rendered {
  recipient: string;
  text: unknown;
  events: unknown;
  count: unknown;
}

describe('the batch node', () => {
  const rendered: Rendered[] = [];
  const render = async (request: RenderRequest) => {
    const { data, $recipient } = request.context;
    rendered.push({
      recipient: String($recipient.distinct_id),
      text: data.text,
      events: data.$batched_events,
      count: data.$batched_events_count,
    });
    return testRenderer(request);
  };
  const t = useTestApp({}, { engine: { engine: { render } } });
  const renderedFor = (recipient: string) => rendered.filter((r) => r.recipient === recipient);
  const runStatuses = async (executionIds: string[]) =>
    (
      await t()
        .db.selectFrom('workflow_runs')
        .select(['execution_id', 'status'])
        .where('execution_id', 'in', executionIds)
        .execute()
    ).map((r) => r.status);
  const fire = async (
    ws: Awaited<ReturnType<typeof engineWorkspace>>,
    workflow: string,
    recipient: string,
    data: object,
  ) => {
    const response = await trigger(t, ws, { workflow, recipients: [recipient], data });
    expect(response.statusCode).toBe(202);
    const id = response.json().message_id as string;
    // Workers take triggers in any order; waiting for each run to reach the node fixes the arrival order.
    await waitFor(async () => {
      const run = await runOf(t, id);
      return run !== undefined && run.status !== 'running';
    });
    return id;
  };

  it('hands the batch to the next trigger when the run that waits for it is cancelled', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'cancel-batch', [node('batch', { fixed_window: '3s' }), inbox('digest')]);
    const ids = [
      await fire(ws, 'cancel-batch', 'cb-a', { text: 'one' }),
      await fire(ws, 'cancel-batch', 'cb-a', { text: 'two' }),
      await fire(ws, 'cancel-batch', 'cb-a', { text: 'three' }),
    ];
    const cancel = await t().app.inject({
      method: 'POST',
      url: '/v1/workflow_run/cancel/',
      headers: ws.base,
      payload: { execution_id: ids[0] },
    });
    expect(cancel.json()).toEqual({ execution_ids: [ids[0]] });
    await waitFor(async () => renderedFor('cb-a').length === 1, 10_000, 'the batch after its waiter was cancelled');
    expect(renderedFor('cb-a')[0]).toEqual({
      recipient: 'cb-a',
      text: 'three',
      events: [{ text: 'two' }, { text: 'three' }],
      count: 2,
    });
    // The message is rendered inside the step's transaction: the run's status is committed just after.
    await waitFor(async () => (await runStatuses(ids)).includes('completed'), 5_000, 'the batch run completed');
    expect(await runStatuses(ids)).toEqual(expect.arrayContaining(['cancelled', 'completed', 'batched']));
  });

  it('gathers the triggers of one recipient and batch key into one run after a fixed window', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'comments', [
      node('batch', { mode: 'accumulate_all', window_type: 'fixed', fixed_window: '4s', batch_key: '.doc' }),
      inbox('digest'),
    ]);
    const ids = [
      await fire(ws, 'comments', 'ann', { doc: 'd1', text: 'one' }),
      await fire(ws, 'comments', 'ann', { doc: 'd1', text: 'two' }),
      await fire(ws, 'comments', 'ann', { doc: 'd2', text: 'other doc' }),
      await fire(ws, 'comments', 'ann', { doc: 'd1', text: 'three' }),
      await fire(ws, 'comments', 'bob', { doc: 'd1', text: 'for bob' }),
    ];
    await waitFor(async () => renderedFor('ann').length >= 2 && renderedFor('bob').length >= 1, 10_000, 'the batches');
    const ann = renderedFor('ann').sort((a, b) => Number(b.count) - Number(a.count));
    expect(ann).toEqual([
      {
        recipient: 'ann',
        text: 'three',
        count: 3,
        events: [
          { doc: 'd1', text: 'one' },
          { doc: 'd1', text: 'two' },
          { doc: 'd1', text: 'three' },
        ],
      },
      { recipient: 'ann', text: 'other doc', count: 1, events: [{ doc: 'd2', text: 'other doc' }] },
    ]);
    expect(renderedFor('bob')).toEqual([
      { recipient: 'bob', text: 'for bob', count: 1, events: [{ doc: 'd1', text: 'for bob' }] },
    ]);
    await waitFor(async () => (await runStatuses(ids)).filter((s) => s === 'completed').length === 3);
    expect((await runStatuses(ids)).sort()).toEqual(['batched', 'batched', 'completed', 'completed', 'completed']);
  });

  it('keeps the first or the last retain_count events and counts all of them', async () => {
    const ws = await engineWorkspace(t);
    for (const order of ['first', 'last']) {
      await liveWorkflow(t, ws, `keep-${order}`, [
        node('batch', { window_type: 'fixed', fixed_window: '5s', retain_count: 2, retain_order: order }),
        inbox('kept'),
      ]);
      for (const n of [1, 2, 3, 4]) await fire(ws, `keep-${order}`, `keeper-${order}`, { n });
    }
    await waitFor(async () => renderedFor('keeper-first').length > 0 && renderedFor('keeper-last').length > 0);
    expect(renderedFor('keeper-first')).toMatchObject([{ count: 4, events: [{ n: 1 }, { n: 2 }] }]);
    expect(renderedFor('keeper-last')).toMatchObject([{ count: 4, events: [{ n: 3 }, { n: 4 }] }]);
  });

  it('flushes the leading trigger at once and batches the rest until the window closes', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'alerts', [
      node('batch', { mode: 'flush_leading_item', window_type: 'fixed', fixed_window: '4s' }),
      inbox('alert'),
    ]);
    const started = Date.now();
    await fire(ws, 'alerts', 'ops', { text: 'first error' });
    await waitFor(async () => renderedFor('ops').length === 1, 5000, 'the leading alert');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(renderedFor('ops')[0]).toMatchObject({ count: 1, events: [{ text: 'first error' }] });
    await fire(ws, 'alerts', 'ops', { text: 'second error' });
    await fire(ws, 'alerts', 'ops', { text: 'third error' });
    await waitFor(async () => renderedFor('ops').length === 2, 10_000, 'the batched alerts');
    expect(renderedFor('ops')[1]).toMatchObject({
      text: 'third error',
      count: 2,
      events: [{ text: 'second error' }, { text: 'third error' }],
    });

    // A window with only the leading trigger sends nothing more.
    await fire(ws, 'alerts', 'quiet', { text: 'alone' });
    await waitFor(async () => renderedFor('quiet').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(renderedFor('quiet')).toHaveLength(1);
  });

  it('reads a dynamic window from the data and a window relative to a timestamp', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'dyn', [
      node('batch', { window_type: 'dynamic', dynamic_window_expr: '$recipient.window' }),
      inbox('dyn'),
    ]);
    await t().app.inject({ method: 'POST', url: '/v1/user/dyn-user/', headers: ws.base, payload: { window: 3 } });
    const started = Date.now();
    await fire(ws, 'dyn', 'dyn-user', { n: 1 });
    await fire(ws, 'dyn', 'dyn-user', { n: 2 });
    await waitFor(async () => renderedFor('dyn-user').length === 1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
    expect(renderedFor('dyn-user')[0]).toMatchObject({ count: 2 });

    await liveWorkflow(t, ws, 'rel', [
      node('batch', {
        window_type: 'relative_to',
        relative_to: { pivot_expr: '.due', offset_type: 'before', offset_value_type: 'fixed', offset_value: '1h' },
      }),
      inbox('rel'),
    ]);
    const due = new Date(Date.now() + 3_600_000 + 4000).toISOString();
    const relStarted = Date.now();
    await fire(ws, 'rel', 'rel-user', { due, n: 1 });
    await fire(ws, 'rel', 'rel-user', { due, n: 2 });
    await waitFor(async () => renderedFor('rel-user').length === 1);
    expect(Date.now() - relStarted).toBeGreaterThanOrEqual(3000);
    expect(renderedFor('rel-user')[0]).toMatchObject({ count: 2 });
  });

  it('refuses to commit a batch node it cannot run, naming the field', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    const refusal = async (fields: Record<string, unknown>) => {
      await config.postWorkflow('bad-batch', {
        name: 'bad-batch',
        category: 'order-updates',
        trigger_type: 'api',
        tree: { nodes: [node('batch', fields), inbox()] },
      });
      const commit = await config.commitWorkflow('bad-batch');
      expect(commit.statusCode).toBe(400);
      return commit.json().message as string;
    };
    expect(await refusal({ window_type: 'fixed', fixed_window: 'soon' })).toContain(
      'tree.nodes[0] (batch): fixed_window must be a duration',
    );
    expect(await refusal({ window_type: 'fixed', fixed_window: '1m', retain_count: 101 })).toContain(
      'retain_count must be an integer from 1 to 100',
    );
    expect(await refusal({ window_type: 'fixed', fixed_window: '1m', mode: 'sometimes' })).toContain(
      'mode must be accumulate_all or flush_leading_item',
    );
    expect(await refusal({ window_type: 'dynamic', dynamic_window_expr: 'window' })).toContain('dynamic_window_expr');
    expect(await refusal({ window_type: 'fixed', fixed_window: '1m', batch_key: 'doc' })).toContain('batch_key');
  });

  it('makes one batch of triggers arriving together, with two workers', async () => {
    await t().engineRuntime!.addWorker();
    const ws = await engineWorkspace(t);
    // The window outlasts the burst's way through the trigger queue, so every trigger finds it open.
    await liveWorkflow(t, ws, 'burst', [node('batch', { window_type: 'fixed', fixed_window: '5s' }), inbox('burst')]);
    const ids = await Promise.all(Array.from({ length: 12 }, (_, n) => fire(ws, 'burst', 'burst-user', { n })));
    await waitFor(async () => renderedFor('burst-user').length >= 1, 15_000, 'the batch');
    await waitFor(async () => (await runStatuses(ids)).every((s) => s === 'completed' || s === 'batched'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(renderedFor('burst-user')).toHaveLength(1);
    expect(renderedFor('burst-user')[0]!.count).toBe(12);
    expect((await runStatuses(ids)).filter((s) => s === 'completed')).toHaveLength(1);
  });

  it('joins concurrent transactions of one key into one batch through the unique index', async () => {
    const ws = await createWorkspaceFixture(t());
    const key = {
      workspaceId: ws.workspaceId,
      workflowSlug: 'race',
      nodeRef: 'batch_1',
      recipientKey: 'user:r',
      batchKey: '',
    };
    const closesAt = new Date(Date.now() + 60_000);
    const joined = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        t()
          .db.transaction()
          .execute(async (trx) => {
            const row = await joinBatch(trx, newUlid(), key, closesAt);
            await addBatchItem(trx, row.id, row.event_count, `run-${n}`, { n });
            return row;
          }),
      ),
    );
    expect(new Set(joined.map((j) => j.id)).size).toBe(1);
    expect(joined.map((j) => j.event_count).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('closes a window that ended while every worker was stopped', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'outage', [node('batch', { window_type: 'fixed', fixed_window: '3s' }), inbox('outage')]);
    const first = await fire(ws, 'outage', 'outage-user', { n: 1 });
    await fire(ws, 'outage', 'outage-user', { n: 2 });
    await waitFor(async () => (await runStatuses([first]))[0] === 'waiting', 5000, 'the batch to wait');
    await t().engineRuntime!.restart(3500);
    expect(renderedFor('outage-user')).toHaveLength(0);
    await waitFor(async () => renderedFor('outage-user').length === 1, 10_000, 'the batch after the restart');
    expect(renderedFor('outage-user')[0]).toMatchObject({ count: 2, events: [{ n: 1 }, { n: 2 }] });
  });
});
