import { fileURLToPath } from 'node:url';
import { Suprsend, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The way a customer imports it: the package's own export (a self-reference), built into dist/.
import { startHerald, type TestHerald } from 'herald/testing';

// Each file starts Herald (a first start migrates an embedded database) and real peers: on a loaded
// two-core machine that takes minutes, not the suite's default 60 s.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 300_000 });

/**
 * A customer's tests, written as a team sending through the hosted platform would write theirs
 * (docs/testing-your-notifications.md): their configuration in files, the official Node SDK pointed
 * at Herald, and the clock moved instead of waited for.
 */

const NOTIFICATIONS = fileURLToPath(new URL('./notifications', import.meta.url));

describe('notifications, tested the way a customer tests them (vitest)', () => {
  let herald: TestHerald;
  let supr: InstanceType<typeof Suprsend>;

  beforeAll(async () => {
    // Monday 2 March 2026, 07:00 UTC: 08:00 in Paris.
    herald = await startHerald({ load: NOTIFICATIONS, now: '2026-03-02T07:00:00Z' });
    supr = new Suprsend(herald.workspaceKey, herald.workspaceSecret, { base_url: herald.baseUrl });
  });
  afterAll(() => herald?.close());

  async function addUser(id: string, email: string, timezone = 'Europe/Paris') {
    await supr.users.upsert(id, { name: id });
    const user = supr.users.get_edit_instance(id);
    user.add_email(email);
    user.set_timezone(timezone);
    await supr.users.edit(user);
  }

  async function trigger(workflow: string, recipient: string, data: Record<string, unknown>) {
    const response = await supr.workflows.trigger(
      new WorkflowTriggerRequest({ workflow, recipients: [recipient], data }),
    );
    expect(response).toMatchObject({ success: true, status_code: 202 });
  }

  const sentTo = (email: string) => herald.deliveries().filter((delivery) => delivery.to === email);

  it('sends the trial reminder a day after the trigger, not before', async () => {
    await addUser('ada', 'ada@example.com');
    const start = herald.clock.now();
    await trigger('trial-reminder', 'ada', { plan: 'Pro' });

    await herald.clock.advance('23h59m');
    expect(sentTo('ada@example.com')).toEqual([]);

    await herald.clock.advance('1m');
    const [reminder, ...more] = sentTo('ada@example.com');
    expect(more).toEqual([]);
    expect(reminder).toMatchObject({
      channel: 'email',
      vendor: { provider: 'smtp', nickname: 'email' },
      recipient: { distinct_id: 'ada' },
      workflow: { slug: 'trial-reminder' },
      content: { subject: 'Your Pro trial ends tomorrow', text: 'Hi ada, your Pro trial ends tomorrow.' },
    });
    expect(reminder!.providerMessageId).toMatch(/^herald-testing-/);
    // Sent a day after the trigger by Herald's clock (a few real seconds of slack for a busy machine).
    expect(Date.parse(reminder!.at) - start).toBeGreaterThanOrEqual(86_400_000);
    expect(Date.parse(reminder!.at) - start).toBeLessThan(86_400_000 + 60_000);

    // The message log reads as usual.
    const log = await fetch(`${herald.baseUrl}v1/message/?distinct_id=ada`, {
      headers: { authorization: `Bearer ${herald.apiKey}` },
    });
    expect(log.status).toBe(200);
    const messages = (await log.json()) as { results: { status: string }[] };
    expect(messages.results.map((message) => message.status)).toEqual(['sent_by_vendor']);
  });

  it('sends one daily summary per day at 09:00 in the recipient’s time zone, over three days', async () => {
    await addUser('grace', 'grace@example.com', 'Europe/Paris');
    const days = [['Deploy'], ['Review', 'Merge'], ['Release', 'Announce', 'Retro']];
    for (const titles of days) {
      for (const title of titles) await trigger('daily-summary', 'grace', { title });
      await herald.clock.advance('1d');
    }
    const summaries = sentTo('grace@example.com');
    expect(summaries.map((summary) => summary.content.subject)).toEqual([
      '1 updates today',
      '2 updates today',
      '3 updates today',
    ]);
    expect(summaries[2]!.content.html).toBe('<ul><li>Release</li><li>Announce</li><li>Retro</li></ul>');
    // 09:00 in Paris is 08:00 UTC in March (before the change to summer time).
    expect(summaries.map((summary) => summary.at.slice(0, 16))).toEqual([
      expect.stringMatching(/^2026-03-0[2-5]T08:00$/),
      expect.stringMatching(/^2026-03-0[2-5]T08:00$/),
      expect.stringMatching(/^2026-03-0[2-5]T08:00$/),
    ]);
    expect(new Set(summaries.map((summary) => summary.at.slice(0, 10))).size).toBe(3);
  });

  it('gathers the comments of a five-minute batch window into one email', async () => {
    await addUser('linus', 'linus@example.com');
    await trigger('comments', 'linus', { post: 'Herald', author: 'ada', text: 'Nice' });
    await herald.clock.advance('1m');
    await trigger('comments', 'linus', { post: 'Herald', author: 'grace', text: 'Ship it' });
    await herald.clock.advance('3m');
    await trigger('comments', 'linus', { post: 'Herald', author: 'alan', text: 'LGTM' });
    expect(sentTo('linus@example.com')).toEqual([]);

    await herald.clock.advance('1m');
    const emails = sentTo('linus@example.com');
    expect(emails).toHaveLength(1);
    expect(emails[0]!.content).toMatchObject({
      subject: '3 new comments on Herald',
      html: '<p>ada: Nice<br>grace: Ship it<br>alan: LGTM<br></p>',
    });
  });

  it('sends no newsletter to a user who opted out of it', async () => {
    await addUser('alan', 'alan@example.com');
    await addUser('barbara', 'barbara@example.com');
    const optOut = await fetch(`${herald.baseUrl}v1/user/alan/preference/category/newsletter/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${herald.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ preference: 'opt_out' }),
    });
    expect(optOut.ok).toBe(true);

    await trigger('newsletter', 'alan', { headline: 'Herald 1.0' });
    await trigger('newsletter', 'barbara', { headline: 'Herald 1.0' });
    await herald.clock.advance(0);
    expect(sentTo('alan@example.com')).toEqual([]);
    expect(sentTo('barbara@example.com').map((email) => email.content.subject)).toEqual(['This week: Herald 1.0']);
  });
});
