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
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';
import { runOf } from '../support/flow.js';

/** httpapi_fetch (docs/engine.md, "httpapi_fetch"): a GET to a local server; its answer feeds later steps. */
describe('the httpapi_fetch node', () => {
  // The HTTP nodes call a local server: the outbound policy must allow it (src/channels/outbound.ts).
  const t = useTestApp({}, { engine: { engine: { outbound: outboundPolicy({ allowedHosts: '127.0.0.1' }) } } });
  let server: http.Server;
  let base = '';
  const calls: { method: string; url: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        calls.push({ method: request.method ?? '', url: request.url ?? '', body, headers: request.headers });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ tier: 'gold', text: 'fetched' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('GETs the URL with its headers and query, and keeps the answer under output_key', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'fetch', [
      node('httpapi_fetch', {
        http_method: 'GET',
        url: `${base}/profile`,
        headers: [{ key: '"x-api"', value: '"k1"' }],
        query_params: [{ key: 'user', value: '$recipient.distinct_id' }],
        // A body has no place in a fetch: it is never sent.
        body: '{"ignored": true}',
        output_key: 'crm',
      }),
      node('branch', {
        branches: [
          {
            name: 'gold',
            conditions: [
              {
                type: 'expression_v1',
                expression_v1: {
                  op: 'AND',
                  args: [{ variable_ns: '', variable: 'crm.tier', op: '==', value: 'gold' }],
                },
              },
            ],
            nodes: [inbox('gold')],
          },
          { name: 'else', is_default: true, nodes: [inbox('other')] },
        ],
      }),
    ]);
    const id = (await trigger(t, ws, { workflow: 'fetch', recipients: ['fx'] })).json().message_id;
    const [message] = await settledMessages(t, ws, id, 1);
    expect(message).toMatchObject({ content: { text: 'gold on inbox' } });
    const call = calls.find((c) => c.url === '/profile?user=fx')!;
    expect(call).toMatchObject({ method: 'GET', body: '' });
    expect(call.headers['x-api']).toBe('k1');
    const run = await waitFor(async () => {
      const r = await runOf(t, id);
      return r?.status === 'completed' ? r : undefined;
    });
    expect(run.data).toEqual({ crm: { tier: 'gold', text: 'fetched' } });
  });

  it('refuses a fetch that is not a GET to an http(s) URL', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    for (const [fields, message] of [
      [{ http_method: 'POST', url: 'https://example.com' }, 'tree.nodes[0] (httpapi_fetch): http_method must be GET'],
      [{ url: 'ftp://example.com' }, 'tree.nodes[0] (httpapi_fetch): url must be an http(s) URL'],
    ] as const) {
      await config.postWorkflow('bad-fetch', {
        name: 'bad-fetch',
        category: 'order-updates',
        trigger_type: 'api',
        tree: { nodes: [node('httpapi_fetch', fields)] },
      });
      const commit = await config.commitWorkflow('bad-fetch');
      expect(commit.statusCode).toBe(400);
      expect(commit.json().message).toContain(message);
    }
  });
});
