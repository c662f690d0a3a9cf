import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { HttpPeer, type RecordedRequest } from '../support/http-peer.js';
import { sdkFor } from '../support/sdk.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

const BOT_TOKEN = 'xoxb-vendor-0123456789';

/**
 * `$slack` entries without access_token ({user_id}, {email}, {channel_id}), as the Node SDK's schema allows,
 * delivered through the workspace's Slack vendor and its bot token (issue #32 point 10). A local HTTP peer stands
 * in for Slack's Web API (the vendor's base_url).
 */
describe('Slack through the workspace bot', () => {
  const t = useTestApp({}, { engine: { engine: { retryDelayScale: 0.002, deliveryTimeoutMs: 2000 } } });
  let slack: HttpPeer;
  beforeAll(async () => {
    slack = await HttpPeer.start();
  });
  afterAll(() => slack.close());

  const slackApi = (request: RecordedRequest) => {
    const body = JSON.parse(request.text) as Record<string, string>;
    if (request.path === '/api/users.lookupByEmail')
      return body.email === 'ada@example.com'
        ? { status: 200, body: { ok: true, user: { id: 'U0ADA' } } }
        : { status: 200, body: { ok: false, error: 'users_not_found' } };
    if (request.path === '/api/chat.postMessage')
      return { status: 200, body: { ok: true, channel: body.channel, ts: `${Date.now()}.000100` } };
    return { status: 404, body: { ok: false, error: 'unknown_method' } };
  };

  it('accepts $slack {user_id} / {email} / {channel_id} from the SDK and delivers with the vendor bot token', async () => {
    slack.reset();
    slack.answerAlways(slackApi);
    const ws = await engineWorkspace(t);
    const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'slack',
      provider: 'slack',
      nickname: 'bot',
      is_default: true,
      config: { access_token: BOT_TOKEN, base_url: `${slack.url}/api`, timeout_ms: 3000 },
    });
    expect(vendor.statusCode, vendor.body).toBe(201);
    expect(vendor.json().config.access_token).toBe('********');

    const sdk = await sdkFor(t(), ws);
    const entries: Record<string, object> = {
      'by-user-id': { user_id: 'U0BOB' },
      'by-email': { email: 'ada@example.com' },
      'by-channel': { channel_id: 'C0OPS' },
    };
    for (const [id, entry] of Object.entries(entries)) {
      await sdk.users.upsert(id, {});
      const edit = sdk.users.get_edit_instance(id);
      edit.add_slack(entry);
      const edited = await sdk.users.edit(edit);
      expect(edited.$slack, JSON.stringify(edited)).toEqual([expect.objectContaining({ value: entry })]);
    }

    await liveWorkflow(t, ws, 'to-slack', [node('send_slack', { template: 'alert' })]);
    const response = await trigger(t, ws, {
      workflow: 'to-slack',
      recipients: Object.keys(entries),
      data: { text: 'deploy done' },
    });
    expect(response.statusCode).toBe(202);
    const settled = await settledMessages(t, ws, response.json().message_id, 3);
    expect(settled.map((m) => [m.recipient.distinct_id, m.status]).sort()).toEqual([
      ['by-channel', 'sent_by_vendor'],
      ['by-email', 'sent_by_vendor'],
      ['by-user-id', 'sent_by_vendor'],
    ]);

    const posts = slack.requests.filter((r) => r.path === '/api/chat.postMessage');
    expect(posts.map((r) => JSON.parse(r.text).channel).sort()).toEqual(['C0OPS', 'U0ADA', 'U0BOB']);
    for (const request of slack.requests) expect(request.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(JSON.parse(posts[0]!.text).text).toBe('deploy done');
    expect(slack.requests.filter((r) => r.path === '/api/users.lookupByEmail')).toHaveLength(1);
  });

  it("records Slack's refusal as failed, without the token", async () => {
    slack.reset();
    slack.answerAlways(slackApi);
    const ws = await engineWorkspace(t);
    await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'slack',
      provider: 'slack',
      is_default: true,
      config: { access_token: BOT_TOKEN, base_url: `${slack.url}/api` },
    });
    await liveWorkflow(t, ws, 'to-slack', [node('send_slack', { template: 'alert' })]);
    const response = await trigger(t, ws, {
      workflow: 'to-slack',
      recipients: [{ distinct_id: 'nobody', $slack: [{ email: 'nobody@example.com' }] }],
    });
    const [message] = await settledMessages(t, ws, response.json().message_id, 1);
    expect(message).toMatchObject({ status: 'delivery_failure' });
    expect(JSON.stringify(message)).not.toContain(BOT_TOKEN);
    expect(slack.requests.filter((r) => r.path === '/api/chat.postMessage')).toHaveLength(0);
  });
});
