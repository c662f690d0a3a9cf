import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { incomingWebhookProvider } from '../../../src/channels/providers/incoming-webhook.js';
import type { DeliveryChannel } from '../../../src/channels/provider.js';
import { deliveryRequest, sendChecked, vendorOf } from '../../support/deliveries.js';
import { closedPort, HttpPeer } from '../../support/http-peer.js';

let peer: HttpPeer;
const hookPath = '/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX';
const hook = () => `${peer.url}${hookPath}`;

const send = (
  channel: DeliveryChannel,
  options: {
    vendorUrl?: string;
    entryUrl?: string | null;
    content?: Record<string, unknown>;
    signal?: AbortSignal;
    timeoutMs?: number;
  } = {},
) => {
  const identity =
    options.entryUrl === null
      ? { access_token: 'xoxb-1', channel_id: 'C1' }
      : { incoming_webhook: { url: options.entryUrl ?? hook() } };
  const config = { timeout_ms: options.timeoutMs ?? 5000, ...(options.vendorUrl ? { url: options.vendorUrl } : {}) };
  return sendChecked(
    incomingWebhookProvider,
    vendorOf('incoming_webhook', config),
    deliveryRequest(channel, identity, options.content ?? { text: 'Deploy *finished*' }),
    { secrets: [hookPath], signal: options.signal },
  );
};

beforeAll(async () => {
  peer = await HttpPeer.start();
});
beforeEach(() => peer.reset());
afterAll(() => peer.close());

describe('incoming_webhook provider', () => {
  it("posts Slack's {text} to the recipient's webhook URL", async () => {
    peer.answer({ status: 200, body: 'ok' });
    expect(await send('slack')).toEqual({ kind: 'sent', providerResponse: 'ok' });
    expect(peer.last.path).toBe(hookPath);
    expect(peer.last.headers['content-type']).toBe('application/json');
    expect(JSON.parse(peer.last.text)).toEqual({ text: 'Deploy *finished*' });
  });

  it('passes Block Kit blocks through when the template made them', async () => {
    const blocks = [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }];
    await send('slack', { content: { text: 'hi', blocks } });
    expect(JSON.parse(peer.last.text)).toEqual({ text: 'hi', blocks });
  });

  it('posts an Adaptive Card message to Teams', async () => {
    peer.answer({ status: 202, body: '' });
    expect(await send('ms_teams')).toEqual({ kind: 'sent', providerResponse: null });
    expect(JSON.parse(peer.last.text)).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [{ type: 'TextBlock', text: 'Deploy *finished*', wrap: true }],
          },
        },
      ],
    });
  });

  it("uses the vendor's url when the recipient's entry has no webhook, and fails when neither has one", async () => {
    await send('slack', { entryUrl: null, vendorUrl: `${peer.url}/vendor-hook` });
    expect(peer.last.path).toBe('/vendor-hook');
    expect(await send('slack', { entryUrl: null })).toEqual({
      kind: 'failed',
      reason: "the recipient's $slack entry has no incoming_webhook.url and the vendor no url",
    });
    expect(peer.requests).toHaveLength(1);
  });

  it("refuses for good on a 4xx, with Slack's explanation", async () => {
    peer.answer({ status: 404, body: 'no_service' });
    expect(await send('slack')).toEqual({
      kind: 'failed',
      reason: 'provider answered 404 (no_service)',
      providerResponse: 'no_service',
    });
    peer.answer({ status: 410, body: 'channel_is_archived' });
    expect((await send('slack')).kind).toBe('failed');
  });

  it('retries a 5xx and a 429 after its Retry-After', async () => {
    peer.answer(
      { status: 500, body: 'rollup_error' },
      { status: 429, headers: { 'retry-after': '30' }, body: 'rate_limited' },
    );
    expect(await send('slack')).toEqual({
      kind: 'retry',
      reason: 'provider answered 500 (rollup_error)',
      providerResponse: 'rollup_error',
    });
    expect(await send('slack')).toEqual({
      kind: 'retry',
      reason: 'provider answered 429 (rate_limited)',
      retryAfterMs: 30_000,
      providerResponse: 'rate_limited',
    });
  });

  it('retries when a Teams connector hides a throttle behind a 200', async () => {
    const text = 'Microsoft Teams endpoint returned HTTP error 429 with ContextId tcid=0,server=msgapi';
    peer.answer({ status: 200, body: text });
    expect(await send('ms_teams')).toEqual({
      kind: 'retry',
      reason: `provider answered 429 (${text})`,
      providerResponse: text,
    });
  });

  it('retries on a timeout, a reset and a refused connection', async () => {
    peer.answer('hang', 'reset');
    expect(await send('slack', { timeoutMs: 300 })).toEqual({ kind: 'retry', reason: 'timed out after 300 ms' });
    expect(await send('ms_teams')).toEqual({ kind: 'retry', reason: 'UND_ERR_SOCKET: other side closed' });
    const port = await closedPort();
    expect(await send('slack', { entryUrl: `http://127.0.0.1:${port}${hookPath}` })).toEqual({
      kind: 'retry',
      reason: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('never returns the webhook URL, which is the credential', async () => {
    peer.answer({ status: 400, body: { error: `invalid_payload for ${hook()}` } });
    expect(await send('slack')).toEqual({
      kind: 'failed',
      reason: 'provider answered 400',
      providerResponse: { error: 'invalid_payload for ********' },
    });
    expect(await send('slack', { entryUrl: 'ftp://example.test/hook' })).toEqual({
      kind: 'failed',
      reason: 'the incoming webhook URL is not an http(s) URL',
    });
  });
});
