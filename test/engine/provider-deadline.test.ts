import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/app.js';
import { configClient } from '../management/config-helpers.js';
import { engineWorkspace, liveWorkflow, node, trigger, waitFor } from './helpers.js';

/** A Twilio-compatible Messages API answering every call after `delayMs`; records when calls came and closed. */
async function startSlowSmsApi(delayMs: number) {
  const calls: { at: number; closedAt?: number; answered: boolean }[] = [];
  const server = http.createServer((request, response) => {
    const call: (typeof calls)[number] = { at: Date.now(), answered: false };
    calls.push(call);
    request.resume();
    response.on('close', () => (call.closedAt = Date.now()));
    setTimeout(() => {
      if (response.destroyed) return;
      call.answered = true;
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sid: 'SM0123', status: 'queued' }));
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An app whose engine bounds provider calls only by their vendor's timeout_ms (as production does). */
async function appWithSmsVendor(baseUrl: string, timeoutMs: number) {
  const app = await buildTestApp({}, { engine: { engine: { deliveryTimeoutMs: undefined } } });
  const t = () => app;
  const ws = await engineWorkspace(t);
  const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
    channel: 'sms',
    provider: 'twilio',
    nickname: 'sms',
    is_default: true,
    config: {
      account_sid: 'AC0123456789',
      auth_token: 'twilio-token-0123456789',
      from: '+15550000000',
      base_url: baseUrl,
      timeout_ms: timeoutMs,
    },
  });
  if (vendor.statusCode !== 201) throw new Error(`vendor: ${vendor.body}`);
  await liveWorkflow(t, ws, 'sms', [node('send_sms', { template: 'note' })]);
  const send = async () => {
    const accepted = await trigger(t, ws, {
      workflow: 'sms',
      recipients: [{ distinct_id: 'u1', $sms: ['+15551230000'] }],
    });
    expect(accepted.statusCode).toBe(202);
    return accepted.json().message_id as string;
  };
  return { app, send };
}

async function smsMessage(app: TestApp, executionId: string) {
  const { rows } = await sql<{ status: string; attempts: { outcome: string; reason?: string }[] }>`
    select status, attempts from messages where execution_id = ${executionId} and channel = 'sms'`.execute(app.db);
  return rows[0];
}

/** docs/channels.md, "What every provider shares": a vendor's `timeout_ms`, and the engine's own abort. */
describe('a provider call’s deadline', () => {
  it(
    'runs to its vendor’s timeout_ms: an answer after 12 s within 15,000 ms is sent, once',
    { timeout: 120_000 },
    async () => {
      const sms = await startSlowSmsApi(12_000);
      const { app, send } = await appWithSmsVendor(sms.url, 15_000);
      try {
        const executionId = await send();
        await waitFor(async () => (await smsMessage(app, executionId))?.status === 'sent_by_vendor', 60_000, 'sent');
        expect(sms.calls).toHaveLength(1);
        expect(sms.calls[0]!.answered).toBe(true);
        expect((await smsMessage(app, executionId))!.attempts.map((a) => a.outcome)).toEqual(['sent']);
      } finally {
        await app.close();
        await sms.close();
      }
    },
  );

  it(
    'ends when the engine stops: the call is aborted, recorded as such, and retried later',
    { timeout: 120_000 },
    async () => {
      const sms = await startSlowSmsApi(50_000);
      const { app, send } = await appWithSmsVendor(sms.url, 60_000);
      try {
        const executionId = await send();
        await waitFor(async () => sms.calls.length === 1, 30_000, 'the call');
        const stopping = Date.now();
        // The worker's graceful stop gives its handlers 1 s, then aborts them.
        await app.engineRuntime!.queue.stop(1000);
        await waitFor(async () => sms.calls[0]!.closedAt !== undefined, 20_000, 'the call to end');
        const endedMs = sms.calls[0]!.closedAt! - stopping;
        expect(sms.calls[0]!.answered).toBe(false);
        // Well before the vendor's 60 s (and before the 10 s every call was once cut at).
        expect(endedMs).toBeLessThan(5000);
        await waitFor(async () => (await smsMessage(app, executionId))?.attempts.length === 1, 10_000, 'the attempt');
        const message = (await smsMessage(app, executionId))!;
        expect(message.status).toBe('triggered');
        expect(message.attempts[0]).toMatchObject({ outcome: 'retry', reason: 'aborted before the provider answered' });
      } finally {
        await app.close();
        await sms.close();
      }
    },
  );
});
