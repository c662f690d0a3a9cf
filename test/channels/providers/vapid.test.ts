import { importJWK, jwtVerify } from 'jose';
import webpush from 'web-push';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { vapidProvider } from '../../../src/channels/providers/vapid.js';
import { deliveryRequest, sendChecked, vendorOf } from '../../support/deliveries.js';
import { closedPort, HttpPeer } from '../../support/http-peer.js';
import { WebPushSubscriber } from '../../support/web-push-subscriber.js';

const VAPID = webpush.generateVAPIDKeys();
const SUBJECT = 'mailto:ops@example.com';
let peer: HttpPeer;
let subscriber: WebPushSubscriber;

const config = (extra: Record<string, unknown> = {}) => ({
  public_key: VAPID.publicKey,
  private_key: VAPID.privateKey,
  subject: SUBJECT,
  timeout_ms: 5000,
  ...extra,
});
const content = { title: 'New comment', body: 'Ana replied to you', url: 'https://app.example.com/c/1' };
const send = (extra: Record<string, unknown> = {}, identity: unknown = subscriber.subscription) =>
  sendChecked(vapidProvider, vendorOf('vapid', config(extra)), deliveryRequest('webpush', identity, content), {
    secrets: [VAPID.privateKey],
  });

/** The VAPID public key (65 bytes, uncompressed point) as a JWK, to check the JWT the push service receives. */
function vapidJwk() {
  const raw = Buffer.from(VAPID.publicKey, 'base64url');
  return {
    kty: 'EC',
    crv: 'P-256',
    x: raw.subarray(1, 33).toString('base64url'),
    y: raw.subarray(33, 65).toString('base64url'),
  };
}

beforeAll(async () => {
  peer = await HttpPeer.start();
});
beforeEach(() => {
  peer.reset();
  subscriber = new WebPushSubscriber(`${peer.url}/push/sub-1`);
});
afterAll(() => peer.close());

describe('vapid provider', () => {
  it('posts the encrypted payload with a VAPID signature the push service can check', async () => {
    peer.answer({ status: 201, headers: { location: `${peer.url}/message/m-1` } });
    expect(await send({ ttl_seconds: 3600, urgency: 'high' })).toEqual({
      kind: 'sent',
      providerMessageId: `${peer.url}/message/m-1`,
      providerResponse: null,
    });
    const request = peer.last;
    expect(request.path).toBe('/push/sub-1');
    expect(request.headers['content-encoding']).toBe('aes128gcm');
    expect(request.headers.ttl).toBe('3600');
    expect(request.headers.urgency).toBe('high');

    const match = /^vapid t=([^,]+), k=(\S+)$/.exec(request.headers.authorization!);
    expect(match?.[2]).toBe(VAPID.publicKey);
    const { payload, protectedHeader } = await jwtVerify(match![1]!, await importJWK(vapidJwk(), 'ES256'), {
      audience: peer.url,
      subject: SUBJECT,
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload.exp! * 1000).toBeGreaterThan(Date.now());
    expect(payload.exp! * 1000).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);

    expect(JSON.parse(subscriber.decrypt(request.body))).toEqual(content);
  });

  it('fails for good when the subscription is gone (404 or 410)', async () => {
    peer.answer({ status: 410, body: 'push subscription has unsubscribed or expired.' }, { status: 404 });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'provider answered 410 (the push subscription has expired or was unsubscribed)',
      providerResponse: 'push subscription has unsubscribed or expired.',
      deadAddress: true,
    });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'provider answered 404 (the push subscription has expired or was unsubscribed)',
      providerResponse: null,
      deadAddress: true,
    });
  });

  it('fails for good on another 4xx, such as a payload too large', async () => {
    peer.answer({ status: 413, body: 'Payload Too Large' });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'provider answered 413 (Payload Too Large)',
      providerResponse: 'Payload Too Large',
    });
  });

  it('retries a 5xx and a 429 after its Retry-After', async () => {
    peer.answer({ status: 502 }, { status: 429, headers: { 'retry-after': '20' }, body: 'slow down' });
    expect(await send()).toEqual({ kind: 'retry', reason: 'provider answered 502', providerResponse: null });
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'provider answered 429 (slow down)',
      retryAfterMs: 20_000,
      providerResponse: 'slow down',
    });
  });

  it('retries on a timeout, a reset and a refused connection', async () => {
    peer.answer('hang', 'reset');
    expect(await send({ timeout_ms: 300 })).toEqual({ kind: 'retry', reason: 'timed out after 300 ms' });
    expect(await send()).toEqual({ kind: 'retry', reason: 'UND_ERR_SOCKET: other side closed' });
    const port = await closedPort();
    const gone = new WebPushSubscriber(`http://127.0.0.1:${port}/push/x`);
    expect(await send({}, gone.subscription)).toEqual({
      kind: 'retry',
      reason: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('fails for good, without a request, on a bad key or a subscription that is not one', async () => {
    const outcome = await send({ private_key: 'c2hvcnQ' });
    expect(outcome).toEqual({
      kind: 'failed',
      reason: 'web push request not built: Vapid private key should be 32 bytes long when decoded.',
    });
    expect(await send({}, { endpoint: `${peer.url}/push`, keys: { p256dh: 'x' } })).toEqual({
      kind: 'failed',
      reason: "the recipient's $webpush entry is not a push subscription {endpoint, keys: {p256dh, auth}}",
    });
    expect(peer.requests).toHaveLength(0);
  });
});
