import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { MAX_INVOKE_DEPTH } from '../../src/engine/nodes/invokeworkflow.js';
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
import { commitOutcome, runOf } from '../support/flow.js';

/** The invokeworkflow node (docs/engine.md, "invokeworkflow"). */
describe('the invokeworkflow node', () => {
  const t = useTestApp({}, { engine: {} });
  const finished = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run && run.status !== 'running' && run.status !== 'waiting' ? run : undefined;
    });
  const executionsOf = (workspaceId: number, slug: string) =>
    t()
      .db.selectFrom('executions as e')
      .innerJoin('workflow_runs as r', 'r.execution_id', 'e.id')
      .select([
        'e.id',
        'e.data',
        'e.actor',
        'e.parent_run_id',
        'e.invoke_depth',
        'r.id as run_id',
        'r.status',
        'r.distinct_id',
      ])
      .where('e.workspace_id', '=', workspaceId)
      .where('e.workflow_slug', '=', slug)
      .orderBy('e.invoke_depth')
      .execute();

  it("starts another workflow for a recipient read from the run, with its data, as the invoking run's child", async () => {
    const ws = await engineWorkspace(t);
    await baseCall(t, ws)('POST', '/v1/user/iw-a/', { manager: 'iw-boss' });
    await liveWorkflow(t, ws, 'escalation', [inbox('escalated')]);
    await liveWorkflow(t, ws, 'ticket', [
      node('invokeworkflow', {
        workflow: 'escalation',
        recipient_selection: 'expression',
        recipient_expression: 'data["$recipient"].manager',
        actor_selection: 'recipient',
        data: '{"kind": "escalation", "ticket": "overridden"}',
        append_current_run_data: true,
      }),
    ]);
    const id = (
      await trigger(t, ws, { workflow: 'ticket', recipients: ['iw-a'], data: { ticket: 'T-1', priority: 'high' } })
    ).json().message_id;
    const parent = await finished(id);
    expect(parent.status).toBe('completed');

    const [child] = await waitFor(async () => {
      const rows = await executionsOf(ws.workspaceId, 'escalation');
      return rows.length === 1 && rows[0]!.status === 'completed' ? rows : undefined;
    });
    expect(child).toMatchObject({
      parent_run_id: parent.id,
      invoke_depth: 1,
      distinct_id: 'iw-boss',
      data: { ticket: 'overridden', priority: 'high', kind: 'escalation' },
      actor: { kind: 'user', distinctId: 'iw-a' },
    });
    // Its message names the invoking run as its parent execution, and is listed under it.
    const listed = await messages(t, ws, `?execution_id=${parent.id}`);
    expect(listed.results).toHaveLength(1);
    expect(listed.results[0]).toMatchObject({
      execution_id: child!.run_id,
      parent_execution_id: parent.id,
      recipient: { distinct_id: 'iw-boss' },
    });
  });

  it(`stops a workflow that invokes itself after ${MAX_INVOKE_DEPTH} invocations, and fails on an unknown workflow`, async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'loop', [
      inbox('again'),
      node('invokeworkflow', { workflow: 'loop', recipient_selection: 'recipient' }),
    ]);
    await trigger(t, ws, { workflow: 'loop', recipients: ['iw-b'] });
    const chain = await waitFor(
      async () => {
        const rows = await executionsOf(ws.workspaceId, 'loop');
        return rows.length === MAX_INVOKE_DEPTH + 1 &&
          rows.every((r) => r.status !== 'running' && r.status !== 'waiting')
          ? rows
          : undefined;
      },
      20_000,
      'the chain of invocations',
    );
    expect(chain.map((r) => r.invoke_depth)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(chain.map((r) => r.status)).toEqual([
      'completed',
      'completed',
      'completed',
      'completed',
      'completed',
      'failed',
    ]);
    for (let depth = 1; depth <= MAX_INVOKE_DEPTH; depth++)
      expect(chain[depth]!.parent_run_id).toBe(chain[depth - 1]!.run_id);
    // Nothing more starts later.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await executionsOf(ws.workspaceId, 'loop')).toHaveLength(MAX_INVOKE_DEPTH + 1);

    await liveWorkflow(t, ws, 'dangling', [
      node('invokeworkflow', { workflow: 'nowhere', recipient_selection: 'recipient' }),
    ]);
    const dangling = (await trigger(t, ws, { workflow: 'dangling', recipients: ['iw-c'] })).json().message_id;
    expect((await finished(dangling)).status).toBe('failed');
  });

  it('refuses a node without a workflow slug or a recipient selection it can read', async () => {
    const ws = await engineWorkspace(t);
    const refusal = async (fields: Record<string, unknown>) => {
      const outcome = await commitOutcome(t, ws, 'bad-invoke', [node('invokeworkflow', fields)]);
      expect(outcome.status).toBe(400);
      return outcome.message;
    };
    const at = 'tree.nodes[0] (invokeworkflow)';
    expect(await refusal({ recipient_selection: 'recipient' })).toContain(`${at}: workflow must be a workflow slug`);
    expect(await refusal({ workflow: 'x' })).toContain(`${at}: recipient_selection is required`);
    expect(await refusal({ workflow: 'x', recipient_selection: 'manager' })).toContain(
      `${at}: recipient_selection must be recipient, actor or expression`,
    );
    expect(await refusal({ workflow: 'x', recipient_selection: 'expression' })).toContain(
      `${at}: recipient_expression must be a non-empty JSONNET string`,
    );
    expect(await refusal({ workflow: 'x', recipient_selection: 'recipient', data: '{a: 1 + 1}' })).toContain(
      `${at}: data must be JSON or a path`,
    );
    expect(await refusal({ workflow: 'x', recipient_selection: 'recipient', actor_selection: 'expression' })).toContain(
      `${at}: actor_expression must be a non-empty JSONNET string`,
    );
  });
});
