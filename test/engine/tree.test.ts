import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../src/channels/outbound.js';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import {
  engineWorkspace,
  inbox,
  liveWorkflow,
  messages,
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';

const when = (variable: string, op: string, value: string, variable_ns = '') => [
  { type: 'expression_v1', expression_v1: { op: 'AND', args: [{ variable_ns, variable, op, value }] } },
];

describe('the workflow tree', () => {
  // The HTTP nodes call a local server: the outbound policy must allow it (src/channels/outbound.ts).
  const t = useTestApp({}, { engine: { engine: { outbound: outboundPolicy({ allowedHosts: '127.0.0.1' }) } } });
  let server: http.Server;
  let apiUrl = '';
  const calls: { url: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        calls.push({ url: request.url ?? '', body, headers: request.headers });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ text: 'from the webhook', tier: 'gold' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/crm`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('takes the first branch whose conditions hold, else the default, then continues after the branch', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'route', [
      node('branch', {
        branches: [
          { name: 'big', conditions: when('order.total', '>=', '100'), nodes: [inbox('big')] },
          { name: 'pro', conditions: when('plan', '==', '"pro"', '$recipient'), nodes: [inbox('pro')] },
          { name: 'other', is_default: true, nodes: [] },
        ],
      }),
      inbox('after'),
    ]);
    await t().app.inject({ method: 'POST', url: '/v1/user/pro-user/', headers: ws.base, payload: { plan: 'pro' } });
    const templatesFor = async (body: object) => {
      const { message_id } = (await trigger(t, ws, { workflow: 'route', ...body })).json();
      await settledMessages(t, ws, message_id, 1);
      await waitFor(
        async () =>
          (
            await t()
              .db.selectFrom('workflow_runs')
              .select('status')
              .where('execution_id', '=', message_id)
              .executeTakeFirst()
          )?.status === 'completed',
      );
      return (await messages(t, ws, `?execution_id=${message_id}`)).results.map((m) => m.content.text);
    };
    expect(await templatesFor({ recipients: ['a'], data: { order: { total: 150 } } })).toEqual([
      'big on inbox',
      'after on inbox',
    ]);
    expect(await templatesFor({ recipients: ['pro-user'], data: { order: { total: 5 } } })).toEqual([
      'pro on inbox',
      'after on inbox',
    ]);
    expect(await templatesFor({ recipients: ['b'], data: {} })).toEqual(['after on inbox']);
  });

  it('waits for a delay read from the data, and skips a run whose workflow conditions do not hold', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'wait', [node('delay', { delay_type: 'dynamic', duration: '.wait' }), inbox('late')]);
    const started = Date.now();
    const { message_id } = (await trigger(t, ws, { workflow: 'wait', recipients: ['d'], data: { wait: '1s' } })).json();
    const [message] = await settledMessages(t, ws, message_id, 1);
    expect(Date.parse(message!.created_at)).toBeGreaterThanOrEqual(started + 1000);

    await liveWorkflow(t, ws, 'gated', [inbox('gated')], {});
    const config = configClient(t, ws);
    await config.postWorkflow('gated', {
      name: 'gated',
      category: 'order-updates',
      trigger_type: 'api',
      tree: { conditions: when('vip', '==', 'true'), nodes: [inbox('gated')] },
    });
    expect((await config.commitWorkflow('gated')).statusCode).toBe(202);
    const skipped = (await trigger(t, ws, { workflow: 'gated', recipients: ['e'], data: { vip: false } })).json()
      .message_id;
    const ran = (await trigger(t, ws, { workflow: 'gated', recipients: ['e'], data: { vip: true } })).json().message_id;
    await settledMessages(t, ws, ran, 1);
    await waitFor(
      async () =>
        (
          await t()
            .db.selectFrom('workflow_runs')
            .select('status')
            .where('execution_id', '=', skipped)
            .executeTakeFirst()
        )?.status === 'skipped',
    );
    expect((await messages(t, ws, `?execution_id=${skipped}`)).results).toEqual([]);
  });

  it('calls an HTTP API and lets the steps after it use the answer', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'enrich', [
      node('httpapi_webhook', {
        http_method: 'POST',
        url: apiUrl,
        headers: [{ key: '"x-source"', value: '"herald"' }],
        query_params: [{ key: 'user', value: '$recipient.distinct_id' }],
        body: '{"hello": "crm"}',
      }),
      node('branch', {
        branches: [
          { name: 'gold', conditions: when('tier', '==', 'gold'), nodes: [inbox('gold')] },
          { name: 'else', is_default: true, nodes: [] },
        ],
      }),
    ]);
    const { message_id } = (await trigger(t, ws, { workflow: 'enrich', recipients: ['f'] })).json();
    const [message] = await settledMessages(t, ws, message_id, 1);
    expect(message).toMatchObject({ workflow: { node_ref: 'send_inbox_1' }, content: { text: 'from the webhook' } });
    const call = calls.find((c) => c.url.includes('user=f'))!;
    expect(call.headers['x-source']).toBe('herald');
    expect(JSON.parse(call.body)).toEqual({ hello: 'crm' });
  });

  it('runs the version live at trigger time, whatever is committed later', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'pinned', [
      node('delay', { delay_type: 'fixed', duration: '2s' }),
      inbox('first-version'),
    ]);
    const { message_id } = (await trigger(t, ws, { workflow: 'pinned', recipients: ['g'] })).json();
    await liveWorkflow(t, ws, 'pinned', [inbox('second-version')]);
    const [message] = await settledMessages(t, ws, message_id, 1, 10_000);
    expect(message).toMatchObject({ content: { text: 'first-version on inbox' }, workflow: { version_id: '1' } });
  });

  it('refuses to commit a tree it cannot run, naming the node', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    await config.postWorkflow('bad', {
      name: 'bad',
      category: 'order-updates',
      trigger_type: 'api',
      tree: { nodes: [inbox(), node('made_up', {})] },
    });
    const commit = await config.commitWorkflow('bad');
    expect(commit.statusCode).toBe(400);
    expect(commit.json().message).toContain(
      "tree.nodes[1] (made_up): node type 'made_up' is not supported by this engine",
    );
  });

  it("refuses an HTTP node's JSONNET beyond what the engine reads, naming the node and the field", async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    await config.postWorkflow('full-jsonnet', {
      name: 'full-jsonnet',
      category: 'order-updates',
      trigger_type: 'api',
      tree: {
        nodes: [
          node('httpapi_webhook', {
            http_method: 'POST',
            // The anchor's own example: a concatenation, which the trivial JSONNET does not evaluate.
            url: '"https://api.example.com/webhook?id=" + data["$recipient"].id',
            headers: [{ key: '"authorization"', value: '"Bearer " + data["$tenant"].api_key' }],
            query_params: [{ key: 'plan', value: 'std.asciiUpper(data.plan)' }],
            body: '{order: data.order_id}',
          }),
          node('httpapi_fetch', {
            url: 'https://api.example.com/profile',
            query_params: [{ key: 'id', value: '.id' }],
          }),
        ],
      },
    });
    const commit = await config.commitWorkflow('full-jsonnet');
    expect(commit.statusCode).toBe(400);
    const message = commit.json().message as string;
    for (const at of ['url', 'headers[0].value', 'query_params[0].value', 'body'])
      expect(message).toContain(
        `tree.nodes[0] (httpapi_webhook): ${at} must be JSON, a path such as data.x or $recipient.x, or plain text (full JSONNET is not supported)`,
      );
    expect(message).not.toContain('headers[0].key');
    expect(message).not.toContain('tree.nodes[1]');
  });
});
