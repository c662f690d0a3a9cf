import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Provider } from '../../../src/channels/provider.js';
import { attemptDeadline, exchange, withoutSecrets } from '../../../src/channels/providers/shared.js';
import { deliveryRequest, sendChecked, vendorOf } from '../../support/deliveries.js';
import { HttpPeer } from '../../support/http-peer.js';

const PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgevZzL1gdAFr88hb2',
  'OF/2NxApJCzGCEDdfSp6VQO30hyhRANCAAQRWz+jn65BtOMvdyHKcvjBeBSDZH2r',
  '-----END PRIVATE KEY-----',
].join('\n');
const request = deliveryRequest('sms', '+14155550123', { text: 'x' });

/** A provider that fails the way a careless library might: echoing its configuration back. */
const echoing = (behaviour: 'throw' | 'answer'): Provider =>
  withoutSecrets({
    name: 'echo',
    channels: ['sms'],
    configSchema: Type.Object({}),
    async send(vendor) {
      const text = `bad config ${JSON.stringify(vendor.config)} / ${String(vendor.config.private_key)}`;
      if (behaviour === 'throw') throw new Error(text);
      return { kind: 'retry', reason: text, providerResponse: { echoed: vendor.config } };
    },
  });

let peer: HttpPeer;
beforeAll(async () => {
  peer = await HttpPeer.start();
});
afterAll(() => peer.close());

describe('provider support', () => {
  it('scrubs secret values from reasons and answers: whole, JSON-escaped, and line by line', async () => {
    const vendor = vendorOf('echo', { auth_token: 'token-1234567890', private_key: PEM, region: 'eu' });
    const outcome = await sendChecked(echoing('answer'), vendor, request, { secrets: ['token-1234567890', PEM] });
    expect(outcome).toEqual({
      kind: 'retry',
      reason: 'bad config {"auth_token":"********","private_key":"********","region":"eu"} / ********',
      providerResponse: { echoed: { auth_token: '********', private_key: '********', region: 'eu' } },
    });
  });

  it('turns a provider that throws into a failed outcome, scrubbed like any other', async () => {
    const vendor = vendorOf('echo', { password: 'hunter2-secret' });
    expect(await sendChecked(echoing('throw'), vendor, request, { secrets: ['hunter2-secret'] })).toEqual({
      kind: 'failed',
      reason: 'echo provider error: bad config {"password":"********"} / undefined',
    });
  });

  it('keeps no more than 2000 characters of a text answer, reading at most 64 KiB of it', async () => {
    peer.answer({ status: 500, body: 'x'.repeat(1024 * 1024) });
    const result = await exchange(
      `${peer.url}/big`,
      { headers: {}, body: '' },
      attemptDeadline(new AbortController().signal, 5000),
    );
    expect(result.ok && result.answer.status).toBe(500);
    expect(result.ok && result.answer.body).toBe(`${'x'.repeat(2000)}…`);
  });
});
