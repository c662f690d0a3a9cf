import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/app.js';
import { slowSmsWorkflow, smsMessage, startSlowSmsApi } from '../support/faults.js';
import { engineWorkspace, waitFor } from '../support/engine-drivers.js';

/** An app whose engine bounds provider calls only by their vendor's timeout_ms (as production does). */
async function appWithSmsVendor(baseUrl: string, timeoutMs: number) {
  const app = await buildTestApp({}, { engine: { engine: { deliveryTimeoutMs: undefined } } });
  const t = () => app;
  const ws = await engineWorkspace(t);
  const send = await slowSmsWorkflow(t, ws, baseUrl, timeoutMs);
  return { app, send };
}

/** docs/channels.md, "What every provider shares": a vendor's `timeout_ms`, and the engine's own abort. */
describe('a provider call’s deadline', () => {
  it(
    'runs to its vendor’s timeout_ms: an answer after 12 s within 15,000 ms is sent, once',
    { timeout: 120_000 },
    async () => {
      const sms = await startSlowSmsApi([12_000]);
      const { app, send } = await appWithSmsVendor(sms.url, 15_000);
      try {
        const executionId = await send();
        await waitFor(async () => (await smsMessage(app.db, executionId))?.status === 'sent_by_vendor', 60_000, 'sent');
        expect(sms.calls).toHaveLength(1);
        expect(sms.calls[0]!.answered).toBe(true);
        expect((await smsMessage(app.db, executionId))!.attempts.map((a) => a.outcome)).toEqual(['sent']);
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
      const sms = await startSlowSmsApi([50_000]);
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
        await waitFor(
          async () => (await smsMessage(app.db, executionId))?.attempts.length === 1,
          10_000,
          'the attempt',
        );
        const message = (await smsMessage(app.db, executionId))!;
        expect(message.status).toBe('triggered');
        expect(message.attempts[0]).toMatchObject({ outcome: 'retry', reason: 'aborted before the provider answered' });
      } finally {
        await app.close();
        await sms.close();
      }
    },
  );
});
