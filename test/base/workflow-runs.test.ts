import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { engineWorkspace, inbox, liveWorkflow, messages, node, trigger, waitFor } from '../support/engine-drivers.js';

/**
 * Run traces (docs/runs.md, docs/spec/product.md §1): every step's outcome recorded as the run walks,
 * read back on the base surface and its management twin.
 */

const when = (variable: string, op: string, value: string) => [
  { type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns: '', variable, op, value }] } },
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- trace JSON, read freely by assertions
type Json = Record<string, any>;

describe('run traces', () => {
  const t = useTestApp({}, { engine: {} });

  const traceOf = async (ws: WorkspaceFixture, executionId: string) => {
    const response = await t().app.inject({ method: 'GET', url: `/v1/workflow_run/${executionId}/`, headers: ws.base });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Json;
  };
  const fire = async (ws: WorkspaceFixture, body: object) => {
    const response = await trigger(t, ws, body);
    expect(response.statusCode, response.body).toBe(202);
    return response.json().message_id as string;
  };
  /** The trace once `done` says it is complete. */
  const settledTrace = (ws: WorkspaceFixture, id: string, done: (trace: Json) => boolean) =>
    waitFor(async () => {
      const trace = await traceOf(ws, id);
      return done(trace) ? trace : undefined;
    }, 15_000);

  it('records the branch taken, the messages delivered and the wait, the same on both surfaces', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'traced', [
      node('branch', {
        branches: [
          { name: 'big', conditions: when('total', '>=', '100'), nodes: [inbox('big')] },
          { name: 'other', is_default: true, nodes: [] },
        ],
      }),
      node('delay', { delay_type: 'fixed', duration: '1h' }),
      inbox('later'),
    ]);
    const id = await fire(ws, {
      workflow: 'traced',
      recipients: ['tr-1'],
      actor: 'boss',
      data: { total: 150 },
      tenant_id: 'default',
      $idempotency_key: 'trace-key-1',
    });
    const trace = await settledTrace(ws, id, (x) => x.status === 'waiting');
    const [message] = (await messages(t, ws, `?execution_id=${id}`)).results;
    expect(trace).toMatchObject({
      execution_id: id,
      workflow: { slug: 'traced', version_id: '1' },
      status: 'waiting',
      idempotency_key: 'trace-key-1',
      tenant_id: 'default',
      actor: { distinct_id: 'boss' },
      recipients_count: 1,
    });
    expect(trace.runs).toHaveLength(1);
    const [run] = trace.runs;
    expect(run).toMatchObject({ recipient: { distinct_id: 'tr-1' }, status: 'waiting' });
    expect(run.run_id).toBe(message!.execution_id);
    expect(run.steps.map((s: Json) => [s.node_ref, s.node_type, s.outcome])).toEqual([
      ['branch_1', 'branch', 'branch_taken'],
      ['send_inbox_1', 'send_inbox', 'delivered_messages'],
      ['delay_1', 'delay', 'waiting_until'],
    ]);
    expect(run.steps[0].detail).toEqual({ branch: 'big', index: 0 });
    expect(run.steps[1].detail.message_ids).toEqual([message!.message_id]);
    expect(run.steps[1].detail.messages).toEqual([{ id: message!.message_id, channel: 'inbox', status: 'delivered' }]);
    const until = Date.parse(run.steps[2].detail.until);
    expect(until - Date.parse(run.steps[2].at)).toBe(3_600_000);

    const twin = await t().app.inject({
      method: 'GET',
      url: `/management/v1/${ws.slug}/workflow_run/${id}/`,
      headers: ws.management,
    });
    expect(twin.statusCode, twin.body).toBe(200);
    expect(twin.json()).toEqual(trace);

    // Cancelled while it waits: the run and the execution say so, the last step is the cancel.
    const cancel = await t().app.inject({
      method: 'POST',
      url: '/v1/workflow_run/cancel/',
      headers: ws.base,
      payload: { execution_id: id },
    });
    expect(cancel.statusCode).toBe(200);
    const cancelled = await traceOf(ws, id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.runs[0].status).toBe('cancelled');
    expect(cancelled.runs[0].steps.at(-1)).toMatchObject({ node_ref: null, outcome: 'cancelled' });
  });

  it('shows triggers absorbed into a batch with the run that carries them', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'gathered', [node('batch', { fixed_window: '2s' }), inbox('digest')]);
    const ids: string[] = [];
    for (const text of ['one', 'two', 'three']) {
      ids.push(await fire(ws, { workflow: 'gathered', recipients: ['tr-b'], data: { text } }));
      // Each run reaches the batch before the next trigger: the first one waits for the window.
      await settledTrace(ws, ids.at(-1)!, (x) => x.status !== 'accepted' && x.status !== 'running');
    }
    const first = await settledTrace(ws, ids[0]!, (x) => x.status === 'completed');
    const [waiter] = first.runs;
    expect(waiter.steps.map((s: Json) => s.outcome)).toEqual(['batched', 'done', 'delivered_messages']);
    const batchId = waiter.steps[0].detail.batch_id;
    expect(typeof batchId).toBe('string');
    expect(Date.parse(waiter.steps[0].detail.flushes_at)).toBeGreaterThan(Date.parse(waiter.steps[0].at));
    expect(waiter.steps[1].detail).toEqual({ batch_id: batchId, batched_events_count: 3 });
    for (const id of ids.slice(1)) {
      const trace = await traceOf(ws, id);
      expect(trace.status).toBe('completed');
      expect(trace.runs[0]).toMatchObject({ status: 'absorbed', absorbed_into: waiter.run_id });
      expect(trace.runs[0].steps).toHaveLength(1);
      expect(trace.runs[0].steps[0]).toMatchObject({ outcome: 'batched', detail: { batch_id: batchId } });
    }
  });

  it('records a skipped run, a rate-limited run and a failed one with its error', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'gated', [inbox('gated')], {
      tree: { conditions: when('vip', '==', 'true'), nodes: [inbox('gated')] },
    });
    await liveWorkflow(t, ws, 'limited', [inbox('limited')], {
      tree: { ratelimit: { count: 1, sliding_window: '1h' }, nodes: [inbox('limited')] },
    });
    await liveWorkflow(t, ws, 'invoking', [
      node('invokeworkflow', { workflow: 'no-such-workflow', recipient_selection: 'recipient' }),
    ]);

    const skipped = await fire(ws, { workflow: 'gated', recipients: ['tr-s'], data: { vip: false } });
    const trace = await settledTrace(ws, skipped, (x) => x.status === 'completed');
    expect(trace.runs[0].steps).toEqual([
      expect.objectContaining({
        node_ref: null,
        node_type: 'workflow',
        outcome: 'skipped',
        detail: { reason: 'conditions' },
      }),
    ]);

    await settledTrace(
      ws,
      await fire(ws, { workflow: 'limited', recipients: ['tr-r'] }),
      (x) => x.status === 'completed',
    );
    const limited = await fire(ws, { workflow: 'limited', recipients: ['tr-r'] });
    const limitedTrace = await settledTrace(ws, limited, (x) => x.status === 'completed');
    expect(limitedTrace.runs[0].steps.map((s: Json) => s.outcome)).toEqual(['rate_limited', 'delivered_messages']);
    expect(limitedTrace.runs[0].steps[0].detail).toEqual({ count: 1, sliding_window: '1h' });
    expect(limitedTrace.runs[0].steps[1].detail.messages[0].status).toBe('not_to_be_triggered');

    const failed = await fire(ws, { workflow: 'invoking', recipients: ['tr-f'] });
    const failedTrace = await settledTrace(ws, failed, (x) => x.status === 'failed');
    expect(failedTrace.runs[0].status).toBe('failed');
    expect(failedTrace.runs[0].steps).toEqual([
      expect.objectContaining({
        node_type: 'invokeworkflow',
        outcome: 'failed',
        detail: { error: "workflow 'no-such-workflow' not found" },
      }),
    ]);
  });

  it('lists executions newest first with filters and cursors; another workspace sees none of them', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'list-a', [inbox('a')]);
    await liveWorkflow(t, ws, 'list-b', [node('delay', { delay_type: 'fixed', duration: '1h' }), inbox('b')]);
    const a1 = await fire(ws, { workflow: 'list-a', recipients: ['ls-1'] });
    const b1 = await fire(ws, { workflow: 'list-b', recipients: ['ls-2'] });
    const a2 = await fire(ws, { workflow: 'list-a', recipients: ['ls-2'] });
    await settledTrace(ws, a2, (x) => x.status === 'completed');
    await settledTrace(ws, a1, (x) => x.status === 'completed');
    await settledTrace(ws, b1, (x) => x.status === 'waiting');
    const list = async (query: string, fixture = ws) => {
      const response = await t().app.inject({ method: 'GET', url: `/v1/workflow_run/${query}`, headers: fixture.base });
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as Json;
    };
    const ids = (page: Json) => page.results.map((e: Json) => e.execution_id);
    expect(ids(await list(''))).toEqual([a2, b1, a1]);
    expect(ids(await list('?workflow_slug=list-a'))).toEqual([a2, a1]);
    expect(ids(await list('?recipient_id=ls-2'))).toEqual([a2, b1]);
    expect(ids(await list('?status=waiting'))).toEqual([b1]);
    expect(ids(await list('?created_at_gte=2999-01-01T00:00:00Z'))).toEqual([]);

    const first = await list('?limit=2');
    expect(first.meta).toMatchObject({ count: 3, has_next: true, has_prev: false });
    expect(ids(first)).toEqual([a2, b1]);
    const second = await list(`?limit=2&after=${first.meta.after}`);
    expect(ids(second)).toEqual([a1]);
    expect(second.meta).toMatchObject({ has_next: false, has_prev: true });
    expect(ids(await list(`?limit=2&before=${second.meta.before}`))).toEqual([a2, b1]);

    const bad = await t().app.inject({ method: 'GET', url: '/v1/workflow_run/?after=nonsense', headers: ws.base });
    expect(bad.statusCode).toBe(400);

    const other = await createWorkspaceFixture(t());
    expect((await list('', other)).results).toEqual([]);
    const stolen = await t().app.inject({ method: 'GET', url: `/v1/workflow_run/${a1}/`, headers: other.base });
    expect(stolen.statusCode).toBe(404);
    const twinStolen = await t().app.inject({
      method: 'GET',
      url: `/management/v1/${other.slug}/workflow_run/${a1}/`,
      headers: other.management,
    });
    expect(twinStolen.statusCode).toBe(404);
    const twinList = await t().app.inject({
      method: 'GET',
      url: `/management/v1/${ws.slug}/workflow_run/?workflow_slug=list-a`,
      headers: ws.management,
    });
    expect(ids(twinList.json())).toEqual([a2, a1]);
  });

  it('lists messages newest first with ?order=desc, paging the same way, and as a management twin', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'ordered', [inbox('o')]);
    const ids: string[] = [];
    for (const user of ['o-1', 'o-2', 'o-3']) {
      const id = await fire(ws, { workflow: 'ordered', recipients: [user] });
      await settledTrace(ws, id, (x) => x.status === 'completed');
      ids.push(id);
    }
    const asc = await messages(t, ws);
    const desc = await messages(t, ws, '?order=desc');
    const order = (page: Json) => page.results.map((m: Json) => m.parent_execution_id);
    expect(order(asc)).toEqual(ids);
    expect(order(desc)).toEqual([...ids].reverse());
    const first = await messages(t, ws, '?order=desc&limit=2');
    expect(order(first)).toEqual([ids[2], ids[1]]);
    const next = await messages(t, ws, `?order=desc&limit=2&after=${first.meta.after}`);
    expect(order(next)).toEqual([ids[0]]);

    // The management twins answer the same, for the token's workspace only.
    const twin = (url: string, fixture = ws) =>
      t().app.inject({ method: 'GET', url: `/management/v1/${fixture.slug}${url}`, headers: fixture.management });
    expect((await twin('/message/?order=desc')).json()).toEqual(desc);
    const one = desc.results[0]!;
    expect((await twin(`/message/${one.message_id}/`)).json()).toEqual(one);
    const other = await createWorkspaceFixture(t());
    expect((await twin(`/message/${one.message_id}/`, other)).statusCode).toBe(404);
    expect((await twin('/message/', other)).json().results).toEqual([]);
  });
});
