import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_NODE_ANSWER_LIMIT, outboundPolicy } from '../../src/channels/outbound.js';
import { useTestApp, type TestApp } from '../support/app.js';
import { engineWorkspace, inbox, liveWorkflow, messages, node, trigger, waitFor } from '../support/engine-drivers.js';
import { runOf } from '../support/flow.js';

/**
 * A workflow HTTP node reads its endpoint's answer no further than HTTP_NODE_ANSWER_LIMIT (issue 25,
 * point 4): a larger answer, declared or streamed, is refused, the run fails and keeps none of it.
 */
describe('an HTTP node answered with more than it reads', () => {
  const t = useTestApp({}, { engine: { engine: { outbound: outboundPolicy({ allowedHosts: 'localhost' }) } } });
  let server: http.Server;
  let base = '';
  let bytesSent = 0;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const size = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('size'));
      const declared = request.url?.includes('declared');
      const payload = `{"blob":"${'x'.repeat(Math.max(0, size - 12))}"}`;
      response.writeHead(200, {
        'content-type': 'application/json',
        ...(declared ? { 'content-length': String(Buffer.byteLength(payload)) } : {}),
      });
      if (declared) {
        response.end(payload);
        return;
      }
      // Streamed without a length, in 64 KiB chunks, for as long as the client reads.
      let at = 0;
      const push = () => {
        while (at < payload.length) {
          const chunk = payload.slice(at, at + 65_536);
          at += chunk.length;
          bytesSent += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', push);
        }
        response.end();
      };
      response.on('error', () => undefined);
      push();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function runTo(t: () => TestApp, nodeType: string, url: string) {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'big-answer', [node(nodeType, { url, output_key: 'answer' }), inbox('after')]);
    const response = await trigger(t, ws, { workflow: 'big-answer', recipients: ['big'] });
    expect(response.statusCode).toBe(202);
    const id = response.json().message_id as string;
    const run = await waitFor(
      async () => {
        const r = await runOf(t, id);
        return r?.status === 'failed' || r?.status === 'completed' ? r : undefined;
      },
      60_000,
      'the run to end',
    );
    return { run, sent: (await messages(t, ws, `?execution_id=${id}`)).results };
  }

  it('streamed or declared, it is refused: the run fails, stores none of it, the steps after it never run', async () => {
    const size = 40 * HTTP_NODE_ANSWER_LIMIT;
    for (const [nodeType, path] of [
      ['httpapi_webhook', `/stream?size=${size}`],
      ['httpapi_fetch', `/stream?size=${size}`],
      ['httpapi_webhook', `/declared?size=${size}`],
    ] as const) {
      bytesSent = 0;
      const { run, sent } = await runTo(t, nodeType, `${base}${path}`);
      expect(run.status, `${nodeType} ${path}`).toBe('failed');
      expect(run.data).toEqual({});
      expect(sent).toEqual([]);
      // The read stopped near the limit, far from the 40 MB offered.
      expect(bytesSent).toBeLessThan(size / 2);
    }
    // Recorded: the run's failure is logged with why.
    const refusals = t().logs.filter((line) => line.msg === 'outside call refused; the run fails');
    expect(refusals.map((line) => (line.err as Error).message)).toContain(
      `the answer of ${base} is larger than ${HTTP_NODE_ANSWER_LIMIT} bytes; it is refused`,
    );
  }, 300_000);

  it('an answer within the limit is kept whole (positive control)', async () => {
    const size = HTTP_NODE_ANSWER_LIMIT - 1024;
    const { run, sent } = await runTo(t, 'httpapi_webhook', `${base}/stream?size=${size}`);
    expect(run.status).toBe('completed');
    expect(String((run.data as { answer: { blob: string } }).answer.blob)).toHaveLength(size - 12);
    expect(sent).toHaveLength(1);
  }, 120_000);

  it('a header value filled from data with CR/LF is refused by name, and the value never reaches the log', async () => {
    const ws = await engineWorkspace(t);
    const marker = `injected-${Date.now()}`;
    await liveWorkflow(t, ws, 'crlf-header', [
      node('httpapi_webhook', {
        url: `${base}/stream?size=20`,
        headers: [{ key: '"x-note"', value: '.note' }],
      }),
    ]);
    const response = await trigger(t, ws, {
      workflow: 'crlf-header',
      recipients: ['crlf'],
      data: { note: `ok\r\nx-evil: ${marker}` },
    });
    expect(response.statusCode).toBe(202);
    const logged = () =>
      t().logs.map((line) => `${JSON.stringify(line)} ${line.err instanceof Error ? line.err.message : ''}`);
    await waitFor(
      async () => logged().some((line) => line.includes('header "x-note" holds a line break')),
      60_000,
      'the refusal to be logged',
    );
    expect(logged().join('\n')).not.toContain(marker);
  }, 120_000);
});
