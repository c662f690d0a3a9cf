import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';
import { liveTemplate } from '../support/templates.js';
import { engineWorkspace, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';

const SECRET = 'whsec-0123456789abcdef';

/**
 * Vendor failover (product spec §5, docs/channels.md "Failover"): a channel's vendors in order (default first, then
 * priority); a permanent refusal, or retries still failing after `fallback_after_seconds`, move the message to the
 * next vendor; every attempt on the message with its vendor; nothing sent twice. Real retry delays (the engine's
 * backoff as users get it): only the vendor's window is chosen short, as a user may set it.
 */
describe('vendor failover', () => {
  const t = useTestApp({}, { engine: { engine: { retryDelayScale: 1 } } });
  let first: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let second: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let downUrl: string;
  beforeAll(async () => {
    first = await startWebhookReceiver(SECRET);
    second = await startWebhookReceiver(SECRET);
    // A vendor that is down: a port nothing listens on any more (connection refused, a transient failure).
    const gone = await startWebhookReceiver(SECRET);
    downUrl = gone.url;
    await gone.close();
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  async function vendor(ws: WorkspaceFixture, nickname: string, url: string, fields: Record<string, unknown> = {}) {
    const response = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'sms',
      provider: 'webhook',
      nickname,
      config: { url, secret: SECRET },
      ...fields,
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; priority: number; fallback_after_seconds: number };
  }

  async function send(ws: WorkspaceFixture, slug: string, who: string) {
    await liveTemplate(t, ws, slug, ['sms']);
    await liveWorkflow(t, ws, slug, [node('send_sms', { template: slug })]);
    const answer = await trigger(t, ws, { workflow: slug, recipients: [{ distinct_id: who, $sms: ['+14155550100'] }] });
    expect(answer.statusCode, answer.body).toBeLessThan(300);
    return waitFor(
      async () => {
        const row = await t()
          .db.selectFrom('messages')
          .select(['id', 'status', 'reason', 'vendor', 'attempts'])
          .where('workspace_id', '=', ws.workspaceId)
          .where('distinct_id', '=', who)
          .executeTakeFirst();
        return row && row.status !== 'triggered' && row.status !== 'to_be_triggered' ? row : undefined;
      },
      20_000,
      `${who}'s message settled`,
    );
  }

  type Attempt = { outcome: string; vendor: { id: string; name: string; nickname: string } };
  const attemptsOf = (row: { attempts: unknown }) => row.attempts as Attempt[];
  const to = (receiver: typeof first, messageId: string) =>
    receiver.received.filter((r) => r.body.message_id === messageId).length;

  it('orders vendors by priority, the default first, and shows both fields on reads', async () => {
    const ws = await engineWorkspace(t);
    const late = await vendor(ws, 'late', downUrl, { priority: 5 });
    expect(late).toMatchObject({ priority: 5, fallback_after_seconds: 60 });
    await vendor(ws, 'early', first.url, { priority: 1, fallback_after_seconds: 30 });
    const row = await send(ws, 'order', 'olga');
    expect(row).toMatchObject({ status: 'sent_by_vendor', vendor: { nickname: 'early' } });
    expect(attemptsOf(row).map((a) => a.vendor.nickname)).toEqual(['early']);
    // The default vendor comes before every priority.
    await configClient(t, ws).inject('PATCH', `/vendor/${late.id}/`, { is_default: true, config: { url: second.url } });
    const next = await send(ws, 'order-2', 'oscar');
    expect(attemptsOf(next).map((a) => a.vendor.nickname)).toEqual(['late']);
    const refused = await configClient(t, ws).inject('PATCH', `/vendor/${late.id}/`, { fallback_after_seconds: -1 });
    expect(refused.statusCode).toBe(400);
  });

  it('moves to the next vendor once the first, down, still fails after its fallback_after_seconds', async () => {
    const ws = await engineWorkspace(t);
    await vendor(ws, 'down', downUrl, { is_default: true, fallback_after_seconds: 3 });
    await vendor(ws, 'backup', second.url, { priority: 1 });
    const startedAt = Date.now();
    const row = await send(ws, 'down-first', 'dora');
    expect(row).toMatchObject({ status: 'sent_by_vendor', vendor: { name: 'webhook', nickname: 'backup' } });
    const attempts = attemptsOf(row);
    // Retried on the first (real backoff: 2.5 to 5 s, then 5 to 10 s) until the next wait would pass 3 s.
    expect(attempts.at(-1)).toMatchObject({ outcome: 'sent', vendor: { nickname: 'backup' } });
    const onDown = attempts.slice(0, -1);
    expect(onDown.length).toBeGreaterThanOrEqual(1);
    expect(onDown.length).toBeLessThanOrEqual(2);
    for (const attempt of onDown) expect(attempt).toMatchObject({ outcome: 'retry', vendor: { nickname: 'down' } });
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    expect(to(second, row.id)).toBe(1);
  });

  it('moves to the next vendor at once when the first refuses permanently; nothing is sent twice', async () => {
    const ws = await engineWorkspace(t);
    await vendor(ws, 'refusing', first.url, { is_default: true });
    await vendor(ws, 'backup', second.url);
    first.plan('rita', [{ status: 400 }]);
    const row = await send(ws, 'refused-first', 'rita');
    expect(row).toMatchObject({ status: 'sent_by_vendor', vendor: { nickname: 'backup' } });
    expect(attemptsOf(row).map((a) => [a.vendor.nickname, a.outcome])).toEqual([
      ['refusing', 'failed'],
      ['backup', 'sent'],
    ]);
    expect(to(first, row.id)).toBe(1);
    expect(to(second, row.id)).toBe(1);
  });

  it('fails the message when every vendor has refused it, each attempt with its vendor', async () => {
    const ws = await engineWorkspace(t);
    await vendor(ws, 'one', first.url, { priority: 1 });
    await vendor(ws, 'two', second.url, { priority: 2 });
    first.plan('fay', [{ status: 422 }]);
    second.plan('fay', [{ status: 403 }]);
    const row = await send(ws, 'all-refuse', 'fay');
    expect(row).toMatchObject({ status: 'delivery_failure', reason: 'provider_refused' });
    expect(attemptsOf(row).map((a) => [a.vendor.nickname, a.outcome])).toEqual([
      ['one', 'failed'],
      ['two', 'failed'],
    ]);
  });
});
