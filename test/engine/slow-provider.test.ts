import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { webhookVendor } from '../support/faults.js';
import { liveTemplate } from '../support/templates.js';
import { engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

const SECRET = 'whsec-slow-0123456789abcdef';
const RECIPIENTS = 60;

/**
 * A provider that answers nothing (every email call runs into the delivery timeout) while another
 * channel's provider answers at once, on a worker with one delivery slot: the other channel's
 * deliveries do not wait for the slow one's timeouts (a fetched batch's deliveries go out side by
 * side, each with its own timeout).
 */
describe('a slow provider', () => {
  const t = useTestApp(
    {},
    { engine: { renderer: 'templates', engine: { deliveryTimeoutMs: 2000, retryDelayScale: 0.01, concurrency: 1 } } },
  );
  let slow: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let fast: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    slow = await startWebhookReceiver(SECRET);
    fast = await startWebhookReceiver(SECRET);
  });
  afterAll(async () => {
    await slow.close();
    await fast.close();
  });

  it('does not stall the other channels', { timeout: 60_000 }, async () => {
    const ws = await engineWorkspace(t);
    await liveTemplate(t, ws, 'note', ['email', 'sms']);
    await webhookVendor(t, ws, 'email', slow.url, SECRET);
    await webhookVendor(t, ws, 'sms', fast.url, SECRET);
    const users = Array.from({ length: RECIPIENTS }, (_, i) => `u-${i}`);
    // Every email call hangs longer than the timeout, once; the retry is answered.
    for (const id of users) slow.plan(id, [{ hangMs: 5000, status: 200 }]);
    // Email first in every run: its jobs are queued ahead of the SMS ones.
    await liveWorkflow(t, ws, 'both', [
      node('send_email', { template: 'note' }),
      node('send_sms', { template: 'note' }),
    ]);
    const recipients = users.map((id) => ({ distinct_id: id, $email: [`${id}@example.com`], $sms: ['+15550000000'] }));
    const began = Date.now();
    const { message_id } = (await trigger(t, ws, { workflow: 'both', recipients })).json();
    await settledMessages(t, ws, message_id, RECIPIENTS * 2, 45_000);
    const smsDone = Math.max(...fast.received.map((r) => r.at)) - began;
    const firstEmailTimeout = Math.min(...slow.received.map((r) => r.at)) - began + 2000;
    expect(fast.received).toHaveLength(RECIPIENTS);
    // Every SMS went out before the first email call had even timed out.
    expect(smsDone).toBeLessThan(firstEmailTimeout);
    expect(new Set(slow.received.map((r) => r.body.message_id)).size).toBe(RECIPIENTS);
  });
});
