import { generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { apnsProvider } from '../../../src/channels/providers/apns.js';
import { deliveryRequest, sendChecked, vendorOf } from '../../support/deliveries.js';
import { closedPort, HttpPeer } from '../../support/http-peer.js';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const P8 = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const DEVICE = 'a'.repeat(64);
let peer: HttpPeer;

// Each test signs with its own key id, so a token cached by one test is not reused by the next.
let keyNo = 0;
const config = (extra: Record<string, unknown> = {}) => ({
  private_key: P8,
  key_id: `KEY${String(keyNo).padStart(7, '0')}`,
  team_id: 'TEAM123456',
  bundle_id: 'com.example.app',
  base_url: peer.url,
  timeout_ms: 5000,
  ...extra,
});
const push = deliveryRequest('iospush', DEVICE, {
  title: 'Order shipped',
  body: 'It arrives Tuesday',
  data: { order_id: 'o-1', aps: 'ignored' },
  badge: 2,
});
const send = (extra: Record<string, unknown> = {}, request = push) =>
  sendChecked(apnsProvider, vendorOf('apns', config(extra)), request, { secrets: [P8] });

beforeAll(async () => {
  peer = await HttpPeer.start({ http2: true });
});
beforeEach(() => {
  peer.reset();
  keyNo++;
});
afterAll(() => peer.close());

describe('apns provider', () => {
  it('posts the notification over HTTP/2 with a signed provider token and returns the apns-id', async () => {
    peer.answer({ status: 200, headers: { 'apns-id': 'EC1BF194-B3B2-424A-89A9-5A918A6E6B5D' } });
    expect(await send()).toEqual({
      kind: 'sent',
      providerMessageId: 'EC1BF194-B3B2-424A-89A9-5A918A6E6B5D',
      providerResponse: null,
    });
    const request = peer.last;
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/3/device/${DEVICE}`);
    expect(request.headers['apns-topic']).toBe('com.example.app');
    expect(request.headers['apns-push-type']).toBe('alert');
    expect(request.headers['apns-priority']).toBe('10');
    const expiration = Number(request.headers['apns-expiration']) - Date.now() / 1000;
    expect(Math.abs(expiration - 28 * 24 * 3600)).toBeLessThan(5);
    const [scheme, jwt] = request.headers.authorization!.split(' ');
    expect(scheme).toBe('bearer');
    const { payload, protectedHeader } = await jwtVerify(jwt!, publicKey, { issuer: 'TEAM123456' });
    expect(protectedHeader).toEqual({ alg: 'ES256', kid: config().key_id });
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
    expect(JSON.parse(request.text)).toEqual({
      order_id: 'o-1',
      aps: { alert: { title: 'Order shipped', body: 'It arrives Tuesday' }, badge: 2 },
    });
  });

  it('tries once when ttl_seconds is 0, and signs one token for messages sent at once', async () => {
    const outcomes = await Promise.all([send({ ttl_seconds: 0 }), send({ ttl_seconds: 0 }), send({ ttl_seconds: 0 })]);
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(['sent', 'sent', 'sent']);
    expect(peer.requests.map((request) => request.headers['apns-expiration'])).toEqual(['0', '0', '0']);
    expect(new Set(peer.requests.map((request) => request.headers.authorization)).size).toBe(1);
  });

  it('keeps one connection and one token across messages, and signs a new token once when it expired', async () => {
    await send();
    await send();
    expect(peer.requests[0]!.headers.authorization).toBe(peer.requests[1]!.headers.authorization);
    const first = peer.requests[0]!.headers.authorization;
    peer.reset();
    peer.answer({ status: 403, body: { reason: 'ExpiredProviderToken' } }, { status: 200 });
    // Two signatures made within the same second are identical, so wait for a new iat.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await send()).kind).toBe('sent');
    expect(peer.requests.map((request) => request.headers.authorization === first)).toEqual([true, false]);
  });

  it("refuses for good a token the device no longer has, with APNs's reason", async () => {
    const gone = { reason: 'Unregistered', timestamp: 1732579200000 };
    peer.answer({ status: 410, body: gone }, { status: 400, body: { reason: 'BadDeviceToken' } });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'provider answered 410 (Unregistered)',
      providerResponse: gone,
      deadAddress: true,
    });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'provider answered 400 (BadDeviceToken)',
      providerResponse: { reason: 'BadDeviceToken' },
    });
  });

  it('retries a 5xx and a 429 after its Retry-After', async () => {
    peer.answer(
      { status: 503, body: { reason: 'ServiceUnavailable' } },
      { status: 429, headers: { 'retry-after': '4' }, body: { reason: 'TooManyRequests' } },
    );
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'provider answered 503 (ServiceUnavailable)',
      providerResponse: { reason: 'ServiceUnavailable' },
    });
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'provider answered 429 (TooManyRequests)',
      retryAfterMs: 4000,
      providerResponse: { reason: 'TooManyRequests' },
    });
  });

  it('retries on a timeout, a reset connection and a refused one', async () => {
    peer.answer('hang');
    expect(await send({ timeout_ms: 300 })).toEqual({ kind: 'retry', reason: 'timed out after 300 ms' });
    peer.answer('reset');
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'ECONNRESET: the connection closed before APNs answered',
    });
    // The connection was dropped: the next message opens a new one.
    peer.answer({ status: 200 });
    expect((await send()).kind).toBe('sent');
    const port = await closedPort();
    expect(await send({ base_url: `http://127.0.0.1:${port}` })).toEqual({
      kind: 'retry',
      reason: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('fails for good, without calling APNs, on a bad key, a bad device token or empty content', async () => {
    expect(await send({ private_key: 'nope' })).toEqual({
      kind: 'failed',
      reason: 'private_key is not the PEM contents of an APNs .p8 key',
    });
    expect(await send({}, deliveryRequest('iospush', 'not hex!', { title: 't' }))).toEqual({
      kind: 'failed',
      reason: "the recipient's $iospush entry is not an APNs device token (hex)",
    });
    expect(await send({}, deliveryRequest('iospush', DEVICE, { data: { a: 1 } }))).toEqual({
      kind: 'failed',
      reason: 'the rendered content has neither title nor body',
    });
    expect(peer.requests).toHaveLength(0);
  });

  it('never returns the key, even when the answer echoes it', async () => {
    peer.answer({ status: 403, body: { reason: 'InvalidProviderToken', key: P8 } });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'provider answered 403 (InvalidProviderToken)',
      providerResponse: { reason: 'InvalidProviderToken', key: '********' },
    });
  });
});
