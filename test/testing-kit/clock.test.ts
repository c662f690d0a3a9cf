import { Suprsend, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHerald, type TestHerald } from 'herald/testing';

// Each file starts Herald (a first start migrates an embedded database) and real peers: on a loaded
// two-core machine that takes minutes, not the suite's default 60 s.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 300_000 });

/**
 * herald/testing's clock (docs/testing-your-notifications.md, "The clock"): one `advance` runs every
 * wait that falls due within it, in order and each at its own time; rate limits and smart-routing TTLs
 * count by the same clock.
 */

const START = '2026-03-02T07:00:00Z';
const text = (label: string) => ({ name: label, node_type: 'send_email', template: 'note' });

describe('herald/testing: the clock', () => {
  let herald: TestHerald;
  let supr: InstanceType<typeof Suprsend>;
  const manage = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${herald.managementUrl}${path}`, {
      method,
      headers: { authorization: `ServiceToken ${herald.serviceToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  };
  const ws = () => herald.workspace;

  beforeAll(async () => {
    herald = await startHerald({ now: START });
    supr = new Suprsend(herald.workspaceKey, herald.workspaceSecret, { base_url: herald.baseUrl });
    await manage('POST', `v1/${ws()}/preference_category/?commit=true`, {
      root_categories: [
        { root_category: 'system', sections: [] },
        {
          root_category: 'transactional',
          sections: [
            { name: 'All', categories: [{ category: 'alerts', name: 'Alerts', default_preference: 'opt_in' }] },
          ],
        },
        { root_category: 'promotional', sections: [] },
      ],
    });
    await manage('POST', `v2/${ws()}/template/note/`, { name: 'Note', enabled_channels: ['email'] });
    await manage('POST', `v2/${ws()}/template/note/channel/email/variant/default/`, {
      locale: 'en',
      content: { subject: 'Note', html: '<p>{{label}}</p>' },
    });
    await manage('PATCH', `v2/${ws()}/template/note/commit/`, {});
    await manage('POST', `v1/${ws()}/vendor/`, {
      channel: 'email',
      provider: 'smtp',
      is_default: true,
      config: { host: 'smtp.example.com', from_email: 'alerts@example.com' },
    });
    await supr.users.upsert('ada', { $email: ['ada@example.com'] } as never);
  });
  afterAll(() => herald?.close());

  const workflow = (slug: string, nodes: unknown[], extra: Record<string, unknown> = {}) =>
    manage('POST', `v1/${ws()}/workflow/${slug}/?commit=true`, {
      name: slug,
      category: 'alerts',
      trigger_type: 'api',
      tree: { nodes, ...extra },
    });
  const trigger = (slug: string, data: Record<string, unknown> = {}) =>
    supr.workflows.trigger(new WorkflowTriggerRequest({ workflow: slug, recipients: ['ada'], data }));
  const sent = (slug: string) =>
    herald
      .deliveries()
      .filter((delivery) => delivery.workflow.slug === slug)
      .map((delivery) => ({ node: delivery.workflow.node_ref, at: delivery.at.slice(0, 16) }));

  it('starts where it was told and moves only when advanced', async () => {
    expect(Math.abs(herald.clock.now() - Date.parse(START))).toBeLessThan(300_000);
    const before = herald.clock.now();
    await herald.clock.advance('2h30m');
    const moved = herald.clock.now() - before;
    expect(moved).toBeGreaterThanOrEqual(9_000_000);
    expect(moved).toBeLessThan(9_000_000 + 60_000);
    await expect(herald.clock.advance('soon')).rejects.toThrow(/duration like 1d2h30m/);
  });

  it('fires a delay, a time window and a wait-until timeout in order, each at its own time, in one advance', async () => {
    // The clock reads 09:30 UTC (the test above moved it): delay to 10:30, the window opens at 12:00, the
    // wait-until gives up half an hour later.
    await workflow('day', [
      text('start'),
      { name: 'hour', node_type: 'delay', delay_type: 'fixed', duration: '1h' },
      text('after-delay'),
      {
        name: 'noon',
        node_type: 'timewindow',
        windows: [{ frequency: 'daily', stime: '12:00', etime: '13:00' }],
        tz_selection: 'fixed',
        tz_fixed: 'UTC',
      },
      text('in-window'),
      {
        name: 'wait',
        node_type: 'branch_waituntil',
        branches: [
          {
            name: 'paid',
            conditions: [{ type: 'future_event', event_name: 'paid', event_conditions: [] }],
            nodes: [text('paid')],
          },
          {
            name: 'timeout',
            is_default: true,
            conditions: [{ type: 'delay', delay_properties: { delay_type: 'fixed', value: '30m' } }],
            nodes: [text('timed-out')],
          },
        ],
      },
    ]);
    const triggeredAt = herald.clock.now();
    await trigger('day');
    await herald.clock.advance('1d');
    const day = herald.deliveries().filter((delivery) => delivery.workflow.slug === 'day');
    // The four sends of the tree, one per node, each at its time by Herald's clock: an hour after the
    // first (up to a minute of real time on a busy machine), when the window opens, half an hour later.
    expect(new Set(day.map((delivery) => delivery.workflow.node_ref)).size).toBe(4);
    const [start, afterDelay, inWindow, timedOut] = day.map((delivery) => Date.parse(delivery.at));
    // (The first send is a job of its own, and may finish after the delay began: the hour counts from the trigger.)
    expect(afterDelay! - triggeredAt).toBeGreaterThanOrEqual(3_600_000);
    expect(afterDelay! - start!).toBeLessThan(3_600_000 + 60_000);
    expect(new Date(inWindow!).toISOString().slice(0, 16)).toBe('2026-03-02T12:00');
    expect(new Date(timedOut!).toISOString().slice(0, 16)).toBe('2026-03-02T12:30');
  });

  it('counts a rate limit by the same clock', async () => {
    await workflow('limited', [text('limited')], { ratelimit: { count: 1, sliding_window: '1h' } });
    await trigger('limited');
    await trigger('limited');
    await herald.clock.advance(0);
    expect(sent('limited')).toHaveLength(1);
    await herald.clock.advance('59m');
    await trigger('limited');
    await herald.clock.advance(0);
    expect(sent('limited')).toHaveLength(1);
    await herald.clock.advance('2m');
    await trigger('limited');
    await herald.clock.advance(0);
    expect(sent('limited')).toHaveLength(2);
  });

  it('moves smart channel routing to the next channel when its share of the TTL has passed by the clock', async () => {
    await manage('POST', `v2/${ws()}/template/route/`, { name: 'Route', enabled_channels: ['email', 'sms'] });
    await manage('POST', `v2/${ws()}/template/route/channel/email/variant/default/`, {
      locale: 'en',
      content: { subject: 'Route', html: '<p>By email</p>' },
    });
    await manage('POST', `v2/${ws()}/template/route/channel/sms/variant/default/`, {
      locale: 'en',
      content: { text: 'By SMS' },
    });
    await manage('PATCH', `v2/${ws()}/template/route/commit/`, {});
    await manage('POST', `v1/${ws()}/vendor/`, {
      channel: 'sms',
      provider: 'twilio',
      is_default: true,
      config: { account_sid: 'AC0123456789abcdef0123456789abcdef', auth_token: 'token-0123', from: '+14155550100' },
    });
    await supr.users.upsert('ada', { $sms: ['+15555550100'] } as never);
    // Two channels over an hour: email at once, and SMS an hour later unless the email was delivered
    // (a recorded email is sent_by_vendor, never delivered).
    await workflow('routed', [
      {
        name: 'route',
        node_type: 'send_smart_channel_routing',
        template: 'route',
        channels: ['email', 'sms'],
        success: 'delivered',
        ttl_value: '1h',
      },
    ]);
    const channels = () =>
      herald
        .deliveries()
        .filter((delivery) => delivery.workflow.slug === 'routed')
        .map((delivery) => ({ channel: delivery.channel, at: Date.parse(delivery.at) }));
    const triggeredAt = herald.clock.now();
    await trigger('routed');
    await herald.clock.advance(0);
    const [email, ...none] = channels();
    expect(email?.channel).toBe('email');
    expect(none).toEqual([]);
    await herald.clock.advance('59m');
    expect(channels()).toHaveLength(1);
    await herald.clock.advance('2m');
    const [, sms, ...more] = channels();
    expect(more).toEqual([]);
    expect(sms?.channel).toBe('sms');
    // An hour after the email by Herald's clock (up to a minute of real time on a busy machine).
    expect(sms!.at - triggeredAt).toBeGreaterThanOrEqual(3_600_000);
    expect(sms!.at - email!.at).toBeLessThan(3_600_000 + 60_000);
  });

  it('fails at once, saying why, when the test has faked the timers the queue polls on, instead of hanging', async () => {
    // A test that fakes timers (a common habit) stops the queue's polling: the delay below would fall due and never
    // be taken, and advance used to wait on a faked timer that never fires.
    await workflow('faked', [{ name: 'hour', node_type: 'delay', delay_type: 'fixed', duration: '1h' }, text('late')]);
    await trigger('faked');
    // Taken before faking: fake timers fake Date and performance too.
    const began = Date.now();
    vi.useFakeTimers();
    try {
      await expect(herald.clock.advance('2h')).rejects.toThrow(
        /clock\.advance cannot run under fake timers .*vi\.useRealTimers\(\)/,
      );
    } finally {
      vi.useRealTimers();
    }
    expect(Date.now() - began).toBeLessThan(5_000);
    // With the real timers back, the same advance runs the delay and its send.
    await herald.clock.advance('2h');
    // (A node's ref is its type and place, send_email_1, not its name.)
    expect(sent('faked').map((delivery) => delivery.node)).toEqual(['send_email_1']);
  });
});
