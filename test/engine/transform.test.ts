import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import {
  engineWorkspace,
  inbox,
  liveWorkflow,
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';
import { runOf } from '../support/flow.js';

/** transform (docs/engine.md, "transform"): variables for the steps after it. */
describe('the transform node', () => {
  const t = useTestApp({}, { engine: {} });

  it('sets JSON, path and handlebars variables that later steps read', async () => {
    const ws = await engineWorkspace(t);
    await t().app.inject({ method: 'POST', url: '/v1/user/tf-a/', headers: ws.base, payload: { name: 'Ada' } });
    await liveWorkflow(t, ws, 'shape', [
      node('transform', {
        variables: [
          { key: 'limits', value_lang: 'jsonnet', value: '{"daily": 5}' },
          { key: 'total', value_lang: 'jsonnet', value: 'data.order.total' },
          { key: 'text', value_lang: 'handlebars', value: 'Hi {{$recipient.name}}, order {{order.id}}' },
        ],
      }),
      inbox('shaped'),
    ]);
    const id = (
      await trigger(t, ws, { workflow: 'shape', recipients: ['tf-a'], data: { order: { id: 'o-9', total: 42 } } })
    ).json().message_id;
    const [message] = await settledMessages(t, ws, id, 1);
    expect(message).toMatchObject({ content: { text: 'Hi Ada, order o-9' } });
    const run = await waitFor(async () => {
      const r = await runOf(t, id);
      return r?.status === 'completed' ? r : undefined;
    });
    expect(run.data).toEqual({ limits: { daily: 5 }, total: 42, text: 'Hi Ada, order o-9' });
  });

  it('refuses variables it cannot set', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    await config.postWorkflow('bad-tf', {
      name: 'bad-tf',
      category: 'order-updates',
      trigger_type: 'api',
      tree: {
        nodes: [
          node('transform', {
            variables: [
              { key: 'a', value: '1' },
              { key: 'a', value: '2' },
              { key: 'b', value_lang: 'python', value: 'x' },
              // Beyond the trivial JSONNET (docs/engine.md, "JSONNET"): refused at commit, never failing a run later.
              { key: 'c', value_lang: 'jsonnet', value: 'data.order.total * 2' },
              { key: 'd', value: 'std.length(data.items)' },
              { key: 'e', value_lang: 'handlebars', value: '{{a}} + b' },
            ],
          }),
        ],
      },
    });
    const commit = await config.commitWorkflow('bad-tf');
    expect(commit.statusCode).toBe(400);
    expect(commit.json().message).toContain("tree.nodes[0] (transform): variables[1].key 'a' is set twice");
    const message = commit.json().message as string;
    expect(message).toContain('variables[2].value_lang must be jsonnet or handlebars');
    for (const i of [3, 4])
      expect(message).toContain(
        `tree.nodes[0] (transform): variables[${i}].value must be JSON or a path such as data.x or $recipient.x (full JSONNET is not supported)`,
      );
    expect(message).not.toContain('variables[5]');
  });
});
