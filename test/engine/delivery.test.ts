import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';
import { baseCall, engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

const SECRET = 'whsec-0123456789abcdef';

describe('the delivery decision and the webhook provider', () => {
  // A 2 s attempt timeout: a quick answer on a loaded CI machine must not time out (the slow one hangs 4 s).
  const t = useTestApp({}, { engine: { engine: { retryDelayScale: 0.002, deliveryTimeoutMs: 2000 } } });
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(SECRET);
  });
  afterAll(() => receiver.close());

  async function withEmailVendor(ws: WorkspaceFixture) {
    const response = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'webhook',
      nickname: 'hook',
      is_default: true,
      config: { url: receiver.url, secret: SECRET, headers: { 'x-team': 'ops' } },
    });
    expect(response.statusCode).toBe(201);
    return response.json();
  }
  const user = (id: string) => ({ distinct_id: id, $email: [`${id}@example.com`] });

  it('manages vendors: config checked by the provider, secrets encrypted at rest and masked on every read', async () => {
    const ws = await engineWorkspace(t);
    const created = await withEmailVendor(ws);
    expect(created).toMatchObject({
      channel: 'email',
      provider: 'webhook',
      nickname: 'hook',
      is_default: true,
      is_active: true,
      // Header values can hold credentials: sealed and masked like the secret (issue 25, point 3).
      config: { url: '********', secret: '********', headers: { 'x-team': '********' } },
    });
    const config = configClient(t, ws);
    expect((await config.inject('GET', `/vendor/${created.id}/`)).json().config.secret).toBe('********');
    expect((await config.inject('GET', '/vendor/')).json().results).toHaveLength(1);
    const stored = await t()
      .db.selectFrom('vendors')
      .select('config')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored.config)).not.toContain(SECRET);
    const invalid = await config.inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'webhook',
      config: { secret: SECRET },
    });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().message).toContain('config');
    const unknown = await config.inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'carrier-pigeon',
      config: {},
    });
    expect(unknown.statusCode).toBe(400);
    // A read body sent back keeps the secret: the mask is not a new secret.
    const patched = await config.inject('PATCH', `/vendor/${created.id}/`, {
      nickname: 'renamed',
      config: { secret: '********' },
    });
    expect(patched.json()).toMatchObject({ nickname: 'renamed', config: { secret: '********' } });
    const second = await config.inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'webhook',
      is_default: true,
      config: { url: receiver.url, secret: SECRET },
    });
    expect(second.statusCode).toBe(201);
    expect((await config.inject('GET', `/vendor/${created.id}/`)).json().is_default).toBe(false);
    expect((await config.inject('DELETE', `/vendor/${second.json().id}/`)).statusCode).toBe(204);
    // An incoming webhook's URL is its credential: sealed and masked like a secret.
    const slack = await config.inject('POST', '/vendor/', {
      channel: 'slack',
      provider: 'incoming_webhook',
      config: { url: 'https://hooks.example.com/services/T000/B000/XXXX' },
    });
    expect(slack.statusCode).toBe(201);
    expect(slack.json().config.url).toBe('********');
    const sealed = await t()
      .db.selectFrom('vendors')
      .select('config')
      .where('id', '=', slack.json().id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(sealed.config)).not.toContain('hooks.example.com');
    expect((await config.inject('GET', `/vendor/${second.json().id}/`)).statusCode).toBe(404);
  });

  it('sends through the webhook, signed, and records the vendor on the message', async () => {
    const ws = await engineWorkspace(t);
    await withEmailVendor(ws);
    await liveWorkflow(t, ws, 'mail', [node('send_email', { template: 'receipt' })]);
    const { message_id } = (
      await trigger(t, ws, { workflow: 'mail', recipients: [user('wendy')], data: { text: 'paid' } })
    ).json();
    const [message] = await settledMessages(t, ws, message_id, 1);
    expect(message).toMatchObject({
      status: 'sent_by_vendor',
      vendor: { name: 'webhook', nickname: 'hook' },
      channel_identity: 'wendy@example.com',
      attempts: 1,
    });
    const delivery = receiver.received.find((r) => r.body.message_id === message!.message_id)!;
    expect(delivery.signatureValid).toBe(true);
    expect(delivery.idempotencyKey).toBe(message!.message_id);
    expect(delivery.body).toMatchObject({
      channel: 'email',
      execution_id: message!.execution_id,
      recipient: { distinct_id: 'wendy' },
      tenant_id: 'default',
      workflow: { slug: 'mail', node_ref: 'send_email_1' },
      content: { text: 'paid' },
    });
  });

  it('refuses with the rule that decided: no channel, tenant blocked, each preference reason', async () => {
    const ws = await engineWorkspace(t);
    await withEmailVendor(ws);
    const call = baseCall(t, ws);
    await call('POST', '/v1/tenant/strict/', { tenant_name: 'Strict', blocked_channels: ['email'] });
    await call('POST', '/v1/user/opted-out/', { $email: ['o@example.com'] });
    await call('PATCH', '/v1/user/opted-out/preference/category/order-updates/', { preference: 'opt_out' });
    await call('POST', '/v1/user/restricted/', { $email: ['r@example.com'] });
    await call('PATCH', '/v1/user/restricted/preference/channel_preference/', {
      channel_preferences: [{ channel: 'email', is_restricted: true }],
    });
    await call('POST', '/v1/user/no-email-here/', { $email: ['n@example.com'] });
    await call('PATCH', '/v1/user/no-email-here/preference/category/order-updates/', {
      preference: 'opt_in',
      opt_out_channels: ['email'],
    });
    await liveWorkflow(t, ws, 'orders', [node('send_email', { template: 'order' })]);
    await liveWorkflow(t, ws, 'news', [node('send_email', { template: 'news' })], { category: 'newsletter' });
    await liveWorkflow(t, ws, 'security', [node('send_email', { template: 'sec' })], { category: 'security-alerts' });

    const reasonsOf = async (body: object, count: number) => {
      const { message_id } = (await trigger(t, ws, body)).json();
      const settled = await settledMessages(t, ws, message_id, count);
      return Object.fromEntries(settled.map((m) => [m.recipient.distinct_id, m.reason ?? m.status]));
    };
    expect(
      await reasonsOf(
        { workflow: 'orders', recipients: ['nobody', 'opted-out', 'restricted', 'no-email-here', user('fine')] },
        5,
      ),
    ).toEqual({
      nobody: 'no_channel',
      'opted-out': 'user_opt_out',
      restricted: 'channel_restricted',
      'no-email-here': 'category_channel_opt_out',
      fine: 'sent_by_vendor',
    });
    expect(await reasonsOf({ workflow: 'orders', recipients: [user('fine')], tenant_id: 'strict' }, 1)).toEqual({
      fine: 'tenant_blocked',
    });
    expect(await reasonsOf({ workflow: 'news', recipients: [user('reader')] }, 1)).toEqual({
      reader: 'default_opt_out',
    });
    // cant_unsubscribe wins over a restricted channel.
    expect(await reasonsOf({ workflow: 'security', recipients: ['restricted'] }, 1)).toEqual({
      restricted: 'sent_by_vendor',
    });
  });

  it('retries 503, 429 (after Retry-After) and timeouts on the one message; a slow provider blocks no other delivery', async () => {
    const ws = await engineWorkspace(t);
    await withEmailVendor(ws);
    await liveWorkflow(t, ws, 'mail', [node('send_email', { template: 'receipt' })]);
    receiver.plan('flaky', [{ status: 503 }, { status: 200 }]);
    receiver.plan('throttled', [{ status: 429, retryAfter: '1' }, { status: 200 }]);
    receiver.plan('slow', [{ hangMs: 4000, status: 200 }, { status: 200 }]);
    const { message_id } = (
      await trigger(t, ws, {
        workflow: 'mail',
        recipients: [user('slow'), user('flaky'), user('throttled'), user('quick')],
      })
    ).json();
    const settled = await settledMessages(t, ws, message_id, 4, 15_000);
    const byUser = Object.fromEntries(settled.map((m) => [m.recipient.distinct_id, m]));
    for (const id of ['slow', 'flaky', 'throttled', 'quick']) expect(byUser[id].status, id).toBe('sent_by_vendor');
    expect(byUser.flaky.attempts).toBe(2);
    expect(byUser.throttled.attempts).toBe(2);
    expect(byUser.slow.attempts).toBe(2);
    expect(byUser.quick.attempts).toBe(1);
    // The quick delivery did not wait for the slow one's timeout.
    const quickAt = receiver.received.find((r) => r.body.message_id === byUser.quick.message_id)!.at;
    const slowRetryAt = receiver.received.filter((r) => r.body.message_id === byUser.slow.message_id)[1]!.at;
    expect(quickAt).toBeLessThan(slowRetryAt);
    // Every attempt of one message carries its message_id as the idempotency key.
    for (const id of ['slow', 'flaky', 'throttled']) {
      const attempts = receiver.received.filter((r) => r.body.message_id === byUser[id].message_id);
      expect(attempts.map((r) => r.idempotencyKey)).toEqual([byUser[id].message_id, byUser[id].message_id]);
    }
  });

  it('fails a permanent refusal at once and gives up after 8 attempts, keeping the provider’s answer', async () => {
    const ws = await engineWorkspace(t);
    await withEmailVendor(ws);
    await liveWorkflow(t, ws, 'mail', [node('send_email', { template: 'receipt' })]);
    receiver.plan('refused', [{ status: 400 }]);
    receiver.plan(
      'down',
      Array.from({ length: 10 }, () => ({ status: 503 })),
    );
    const { message_id } = (
      await trigger(t, ws, { workflow: 'mail', recipients: [user('refused'), user('down')] })
    ).json();
    const settled = await settledMessages(t, ws, message_id, 2, 20_000);
    const byUser = Object.fromEntries(settled.map((m) => [m.recipient.distinct_id, m]));
    expect(byUser.refused).toMatchObject({
      status: 'delivery_failure',
      reason: 'provider_refused',
      attempts: 1,
      error: { message: 'provider answered 400', provider_response: { status: 400 } },
    });
    expect(byUser.down).toMatchObject({ status: 'delivery_failure', reason: 'retries_exhausted', attempts: 8 });
  });

  it('fails a message whose template cannot render, and the run goes on', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'two', [
      node('send_inbox', { template: 'broken' }),
      node('send_inbox', { template: 'fine' }),
    ]);
    const { message_id } = (await trigger(t, ws, { workflow: 'two', recipients: ['ren'] })).json();
    const settled = await settledMessages(t, ws, message_id, 2);
    const byRef = Object.fromEntries(settled.map((m) => [m.workflow.node_ref, m]));
    expect(byRef.send_inbox_1).toMatchObject({ status: 'trigger_failed', reason: 'render_failed' });
    expect(byRef.send_inbox_1.error.message).toContain('broken');
    expect(byRef.send_inbox_2).toMatchObject({ status: 'delivered' });
  });
});
