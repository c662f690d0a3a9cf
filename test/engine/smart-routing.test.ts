import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';
import {
  baseCall,
  engineWorkspace,
  liveWorkflow,
  messages,
  node,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';
import { commitOutcome, makeRunJobsDue, runOf, testClock } from '../support/flow.js';

/**
 * send_smart_channel_routing (docs/engine.md, "send_smart_channel_routing"). Each wait between two
 * channels is a scheduled job: the engine's clock is moved past it and the job made due, as the
 * queue does when the time comes; nothing is slept through.
 */

const SECRET = 'whsec-smart-routing-0123';
const HOUR = 3_600_000;

describe('the smart channel routing node', () => {
  const clock = testClock();
  const t = useTestApp({}, { engine: { engine: { now: clock.now } } });
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(SECRET);
  });
  afterAll(() => receiver.close());

  async function workspace() {
    const ws = await engineWorkspace(t);
    for (const channel of ['email', 'sms']) {
      const response = await configClient(t, ws).inject('POST', '/vendor/', {
        channel,
        provider: 'webhook',
        is_default: true,
        config: { url: receiver.url, secret: SECRET },
      });
      expect(response.statusCode).toBe(201);
    }
    return ws;
  }
  const user = async (ws: WorkspaceFixture, id: string) =>
    baseCall(t, ws)('POST', `/v1/user/${id}/`, { $email: [`${id}@example.com`], $sms: ['+15555550100'] });
  const smart = (fields: Record<string, unknown>) =>
    node('send_smart_channel_routing', { template: 'alert', success: 'seen', ...fields });
  const stepMessages = async (ws: WorkspaceFixture, executionId: string) =>
    (await messages(t, ws, `?execution_id=${executionId}&limit=100`)).results
      .map((m) => ({ channel: m.channel, status: m.status, reason: m.reason }))
      .sort((a, b) => a.channel.localeCompare(b.channel));
  const waitingRun = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run?.status === 'waiting' ? run : undefined;
    });
  const settled = (ws: WorkspaceFixture, id: string, count: number) =>
    waitFor(async () => {
      const found = await stepMessages(ws, id);
      return found.length === count && found.every((m) => m.status !== 'to_be_triggered' && m.status !== 'triggered')
        ? found
        : undefined;
    });

  it('skips a refused channel at once, waits the TTL share after a sent one, and stops at success', async () => {
    const ws = await workspace();
    await user(ws, 'sr-a');
    // Three channels over 2h: one hour after each channel sent.
    await liveWorkflow(t, ws, 'seen-stops', [smart({ channels: ['whatsapp', 'inbox', 'sms'], ttl_value: '2h' })]);
    const startedAt = clock.now();
    const id = (await trigger(t, ws, { workflow: 'seen-stops', recipients: ['sr-a'] })).json().message_id;
    const run = await waitingRun(id);
    expect(run.resume_at!.getTime()).toBeGreaterThanOrEqual(startedAt + HOUR);
    expect(run.resume_at!.getTime()).toBeLessThan(clock.now() + HOUR + 1000);
    // whatsapp: no identity, refused and passed over at once; inbox sent; sms not tried yet.
    const first = await settled(ws, id, 2);
    expect(first).toEqual([
      { channel: 'inbox', status: 'delivered', reason: null },
      { channel: 'whatsapp', status: 'not_to_be_triggered', reason: 'no_channel' },
    ]);

    const inboxMessage = (await messages(t, ws, `?execution_id=${id}&channel=inbox`)).results[0]!;
    const seen = await baseCall(t, ws)('PATCH', '/v1/bulk/message/', {
      messages: [{ message_id: inboxMessage.message_id, action: 'seen' }],
    });
    expect(seen.statusCode).toBe(202);

    try {
      clock.jumpTo(run.resume_at!.getTime());
      expect(await makeRunJobsDue(t, run.id)).toBe(1);
      await waitFor(async () => (await runOf(t, id))?.status === 'completed');
      // The inbox message was seen: sms is never tried and leaves no message.
      expect((await stepMessages(ws, id)).map((m) => m.channel)).toEqual(['inbox', 'whatsapp']);
      expect(receiver.received.filter((r) => JSON.stringify(r.body).includes('sr-a'))).toHaveLength(0);
    } finally {
      clock.reset();
    }
  });

  it('sends mandatory channels at once and the next channel when success is not reached, then a restart changes nothing', async () => {
    const ws = await workspace();
    await user(ws, 'sr-b');
    await liveWorkflow(t, ws, 'escalate', [
      // The mandatory inbox is delivered at once: it does not count as the routing's success.
      smart({ channels: ['email', 'sms'], mandatory_channels: ['inbox'], success: 'delivered', ttl_value: '30m' }),
      node('send_inbox', { template: 'after' }),
    ]);
    const id = (await trigger(t, ws, { workflow: 'escalate', recipients: ['sr-b'] })).json().message_id;
    const run = await waitingRun(id);
    expect(await settled(ws, id, 2)).toEqual([
      { channel: 'email', status: 'sent_by_vendor', reason: null },
      { channel: 'inbox', status: 'delivered', reason: null },
    ]);
    const sentTo = (channel: string) =>
      receiver.received.filter(
        (r) => (r.body as { channel?: string }).channel === channel && JSON.stringify(r.body).includes('sr-b'),
      );
    await waitFor(async () => sentTo('email').length === 1);

    try {
      clock.jumpTo(run.resume_at!.getTime());
      expect(await makeRunJobsDue(t, run.id)).toBe(1);
      await waitFor(async () => (await runOf(t, id))?.status === 'completed');
      const all = await settled(ws, id, 4);
      expect(all.map((m) => m.channel)).toEqual(['email', 'inbox', 'inbox', 'sms']);
      expect(sentTo('sms')).toHaveLength(1);

      // A restart afterwards records and sends nothing again.
      await t().engineRuntime!.restart(500);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await stepMessages(ws, id)).toHaveLength(4);
      expect(sentTo('sms')).toHaveLength(1);
      expect(sentTo('email')).toHaveLength(1);
    } finally {
      clock.reset();
    }
  });

  it('resumes a routing wait that passed while every worker was stopped', async () => {
    const ws = await workspace();
    await user(ws, 'sr-c');
    await liveWorkflow(t, ws, 'outage', [smart({ channels: ['inbox', 'sms'], ttl_value: '10m' })]);
    const id = (await trigger(t, ws, { workflow: 'outage', recipients: ['sr-c'] })).json().message_id;
    const run = await waitingRun(id);
    await settled(ws, id, 1);
    try {
      clock.jumpTo(run.resume_at!.getTime());
      expect(await makeRunJobsDue(t, run.id)).toBe(1);
      await t().engineRuntime!.restart(1000);
      await waitFor(async () => (await runOf(t, id))?.status === 'completed', 15_000, 'the run after the restart');
      expect((await settled(ws, id, 2)).map((m) => m.channel)).toEqual(['inbox', 'sms']);
    } finally {
      clock.reset();
    }
  });

  describe('with an event as its success (success_is_event)', () => {
    let insert = 0;
    const track = async (ws: WorkspaceFixture, distinct_id: string, event: string) => {
      const response = await baseCall(t, ws)('POST', '/event/', { event, distinct_id, $insert_id: `sre-${++insert}` });
      expect(response.statusCode).toBe(202);
    };
    const paid = (fields: Record<string, unknown> = {}) =>
      smart({ channels: ['inbox', 'sms'], success: 'order_paid', success_is_event: true, ttl_value: '1h', ...fields });
    const waitOf = (runId: string) =>
      t()
        .db.selectFrom('workflow_event_waits')
        .select(['status', 'event_name'])
        .where('run_id', '=', runId)
        .executeTakeFirst();
    const sentTo = (channel: string, id: string) =>
      receiver.received.filter(
        (r) => (r.body as { channel?: string }).channel === channel && JSON.stringify(r.body).includes(id),
      );

    it("stops at the recipient's event tracked after the routing began, not at another's, another name or an earlier one", async () => {
      const ws = await workspace();
      await user(ws, 'sre-a');
      await liveWorkflow(t, ws, 'paid-stops', [
        paid({ mandatory_channels: ['email'] }),
        node('send_inbox', { template: 'after' }),
      ]);
      // Tracked before the routing began: it does not count.
      await track(ws, 'sre-a', 'order_paid');
      const id = (await trigger(t, ws, { workflow: 'paid-stops', recipients: ['sre-a'] })).json().message_id;
      const run = await waitingRun(id);
      expect(await settled(ws, id, 2)).toEqual([
        { channel: 'email', status: 'sent_by_vendor', reason: null },
        { channel: 'inbox', status: 'delivered', reason: null },
      ]);
      // (A delivery attempt that timed out on a loaded machine may reach the receiver twice: counted as messages.)
      await waitFor(async () => sentTo('email', 'sre-a').length > 0);
      await track(ws, 'sre-other', 'order_paid');
      await track(ws, 'sre-a', 'order_shipped');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await runOf(t, id)).toMatchObject({ status: 'waiting', resume_at: run.resume_at });

      // The event wakes the run at once (no clock moved): the routing ends, sms is never tried.
      await track(ws, 'sre-a', 'order_paid');
      await waitFor(async () => (await runOf(t, id))?.status === 'completed', 10_000, 'the run after the event');
      expect((await stepMessages(ws, id)).map((m) => m.channel)).toEqual(['email', 'inbox', 'inbox']);
      expect(sentTo('sms', 'sre-a')).toHaveLength(0);
      expect(await waitOf(run.id)).toEqual({ status: 'matched', event_name: 'order_paid' });
    });

    it('goes on to the next channel after the TTL share when the event does not come', async () => {
      const ws = await workspace();
      await user(ws, 'sre-b');
      await liveWorkflow(t, ws, 'paid-escalates', [paid({ mandatory_channels: ['email'] })]);
      const id = (await trigger(t, ws, { workflow: 'paid-escalates', recipients: ['sre-b'] })).json().message_id;
      const run = await waitingRun(id);
      await settled(ws, id, 2);
      try {
        clock.jumpTo(run.resume_at!.getTime());
        expect(await makeRunJobsDue(t, run.id)).toBe(1);
        await waitFor(async () => (await runOf(t, id))?.status === 'completed');
        expect((await settled(ws, id, 3)).map((m) => m.channel)).toEqual(['email', 'inbox', 'sms']);
        await waitFor(async () => sentTo('sms', 'sre-b').length > 0);
        // The routing is over: its wait no longer collects events, and a late one changes nothing.
        expect(await waitOf(run.id)).toEqual({ status: 'timed_out', event_name: 'order_paid' });
        await track(ws, 'sre-b', 'order_paid');
        await new Promise((resolve) => setTimeout(resolve, 1000));
        expect(await stepMessages(ws, id)).toHaveLength(3);
      } finally {
        clock.reset();
      }
    });

    it('keeps waiting for the event across a restart of every worker', async () => {
      const ws = await workspace();
      await user(ws, 'sre-c');
      await liveWorkflow(t, ws, 'paid-outage', [paid()]);
      const id = (await trigger(t, ws, { workflow: 'paid-outage', recipients: ['sre-c'] })).json().message_id;
      const run = await waitingRun(id);
      await settled(ws, id, 1);
      // Every worker stops; the event is tracked while none runs, and the fresh worker acts on it.
      const outage = t().engineRuntime!.restart(2500);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await track(ws, 'sre-c', 'order_paid');
      await outage;
      await waitFor(async () => (await runOf(t, id))?.status === 'completed', 15_000, 'the run after the restart');
      expect((await stepMessages(ws, id)).map((m) => m.channel)).toEqual(['inbox']);
      expect(sentTo('sms', 'sre-c')).toHaveLength(0);
      expect(await waitOf(run.id)).toEqual({ status: 'matched', event_name: 'order_paid' });
    });
  });

  it('runs a legacy trigger with delivery.smart as smart routing: mandatory at once, the cheapest channel, success and time_to_live', async () => {
    const ws = await workspace();
    const whatsapp = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'whatsapp',
      provider: 'webhook',
      is_default: true,
      config: { url: receiver.url, secret: SECRET },
    });
    expect(whatsapp.statusCode).toBe(201);
    const call = baseCall(t, ws);
    const legacy = (delivery: Record<string, unknown>, id: string) =>
      call('POST', `/${ws.workspaceKey}/trigger/`, {
        name: 'legacy-smart',
        template: 'alert',
        notification_category: 'transactional',
        users: [{ distinct_id: id, $sms: ['+15555550100'], $whatsapp: ['+15555550101'] }],
        delivery,
      });
    const accepted = await legacy(
      { smart: true, success: 'seen', time_to_live: '2h', mandatory_channels: ['inbox'] },
      'sr-legacy',
    );
    expect(accepted.statusCode).toBe(202);
    const id = accepted.json().message_id as string;
    const run = await waitingRun(id);
    // One hour is the TTL share of two routed channels over 2h. WhatsApp goes before SMS (cheaper),
    // although the profile's channel order puts SMS first.
    expect(run.resume_at!.getTime()).toBeGreaterThan(clock.now() + HOUR - 60_000);
    expect(await settled(ws, id, 2)).toEqual([
      { channel: 'inbox', status: 'delivered', reason: null },
      { channel: 'whatsapp', status: 'sent_by_vendor', reason: null },
    ]);
    try {
      clock.jumpTo(run.resume_at!.getTime());
      expect(await makeRunJobsDue(t, run.id)).toBe(1);
      await waitFor(async () => (await runOf(t, id))?.status === 'completed');
      expect((await settled(ws, id, 3)).map((m) => m.channel)).toEqual(['inbox', 'sms', 'whatsapp']);
    } finally {
      clock.reset();
    }

    // A custom success names an event; interaction is the node's interacted.
    const event = await legacy({ smart: true, success: 'order_opened' }, 'sr-legacy-2');
    const interaction = await legacy({ smart: true, success: 'interaction' }, 'sr-legacy-3');
    const trees = await t()
      .db.selectFrom('executions')
      .select(['id', 'tree'])
      .where('id', 'in', [event.json().message_id, interaction.json().message_id])
      .execute();
    const nodeOf = (executionId: string) =>
      (trees.find((row) => row.id === executionId)!.tree as { nodes: Record<string, unknown>[] }).nodes[0];
    expect(nodeOf(event.json().message_id)).toMatchObject({
      node_type: 'send_smart_channel_routing',
      success: 'order_opened',
      success_is_event: true,
      ttl_value: '1h',
    });
    expect(nodeOf(interaction.json().message_id)).toMatchObject({ success: 'interacted' });
    expect(nodeOf(interaction.json().message_id)).not.toHaveProperty('success_is_event');

    const badTtl = await legacy({ smart: true, time_to_live: 'soon' }, 'sr-legacy-4');
    expect(badTtl.statusCode).toBe(400);
    expect(badTtl.json().message).toContain('delivery.time_to_live');
    const badSuccess = await legacy({ smart: true, success: 42 }, 'sr-legacy-5');
    expect(badSuccess.statusCode).toBe(400);
    expect(badSuccess.json().message).toContain('delivery.success');
  });

  it('refuses a node it cannot route, naming the node and the field', async () => {
    const ws = await engineWorkspace(t);
    const refusal = async (fields: Record<string, unknown>) => {
      const outcome = await commitOutcome(t, ws, 'bad-smart', [
        node('send_smart_channel_routing', { template: 'alert', ...fields }),
      ]);
      expect(outcome.status).toBe(400);
      return outcome.message;
    };
    const at = 'tree.nodes[0] (send_smart_channel_routing)';
    expect(await refusal({ ttl_value: '1h' })).toContain(`${at}: channels (a list) or channels_expr`);
    expect(await refusal({ channels: ['email', 'fax'], ttl_value: '1h' })).toContain(`${at}: channels must list`);
    expect(await refusal({ channels: ['email', 'sms'] })).toContain(`${at}: ttl_value must be a duration`);
    expect(await refusal({ channels: ['email', 'sms'], ttl_value: 'soon' })).toContain('ttl_value');
    expect(await refusal({ channels: ['email', 'sms'], ttl_value: '1h', success: 'opened' })).toContain(
      `${at}: success must be delivered, seen or interacted`,
    );
    expect(
      await refusal({ channels: ['email', 'sms'], ttl_value: '1h', success: 'paid', success_is_event: 'yes' }),
    ).toContain(`${at}: success_is_event must be true or false`);
    for (const success of [undefined, '', '$app_opened', 'ss_paid', ' paid', 'x'.repeat(257)])
      expect(await refusal({ channels: ['email', 'sms'], ttl_value: '1h', success, success_is_event: true })).toContain(
        `${at}: success must name the success event when success_is_event is true`,
      );
    // An event name is a success only with success_is_event.
    expect(await refusal({ channels: ['email', 'sms'], ttl_value: '1h', success: 'paid' })).toContain(
      `${at}: success must be delivered, seen or interacted`,
    );
    const accepted = await commitOutcome(t, ws, 'event-smart', [
      node('send_smart_channel_routing', {
        template: 'alert',
        channels: ['email', 'sms'],
        ttl_value: '1h',
        success: 'order_paid',
        success_is_event: true,
      }),
    ]);
    expect(accepted.status).toBe(202);
    expect(await refusal({ channels: ['email'], mandatory_channels: ['pager'] })).toContain(
      `${at}: mandatory_channels must list`,
    );
    expect(await refusal({ channels: ['email'], template: 'Not A Slug' })).toContain(`${at}: template must be`);
  });
});
