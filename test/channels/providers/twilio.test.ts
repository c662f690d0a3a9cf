import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isTwilioSigned, twilioProvider, twilioSignature } from '../../../src/channels/providers/twilio.js';
import { deliveryRequest, LOOPBACK_ALLOWED, sendChecked, vendorOf } from '../../support/deliveries.js';
import { closedPort, HttpPeer } from '../../support/http-peer.js';

const SID = 'AC00000000000000000000000000000001';
const TOKEN = 'twilio-auth-token-4f9a1c2e7b';
let peer: HttpPeer;

const config = (extra: Record<string, unknown> = {}) => ({
  account_sid: SID,
  auth_token: TOKEN,
  from: '+14155550100',
  base_url: peer.url,
  timeout_ms: 5000,
  ...extra,
});
const sms = deliveryRequest('sms', '+14155550123', { text: 'Your code is 1234' });
const send = (request = sms, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  sendChecked(twilioProvider, vendorOf('twilio', config(extra)), request, { secrets: [TOKEN], signal });

beforeAll(async () => {
  peer = await HttpPeer.start();
});
beforeEach(() => peer.reset());
afterAll(() => peer.close());

describe('twilio provider', () => {
  it('posts the message form to the Messages API with Basic auth and returns the message SID', async () => {
    peer.answer({ status: 201, body: { sid: 'SM123', status: 'queued' } });
    const outcome = await send();
    expect(outcome).toEqual({
      kind: 'sent',
      providerMessageId: 'SM123',
      providerResponse: { sid: 'SM123', status: 'queued' },
    });
    const request = peer.last;
    expect(request.method).toBe('POST');
    expect(request.path).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(request.text))).toEqual({
      To: '+14155550123',
      From: '+14155550100',
      Body: 'Your code is 1234',
    });
  });

  it('prefixes both numbers with whatsapp: on the whatsapp channel, and takes a channel entry as identity', async () => {
    peer.answer({ status: 201, body: { sid: 'SM124' } });
    const entry = { value: '+14155550123', status: 'active', perma_status: 'active' };
    await send(deliveryRequest('whatsapp', entry, { text: 'hola' }));
    expect(Object.fromEntries(new URLSearchParams(peer.last.text))).toEqual({
      To: 'whatsapp:+14155550123',
      From: 'whatsapp:+14155550100',
      Body: 'hola',
    });
  });

  it('asks for status callbacks only when the send context names the URL (PUBLIC_URL set)', async () => {
    peer.answer({ status: 201, body: { sid: 'SM126' } }, { status: 201, body: { sid: 'SM127' } });
    const callbackUrl = 'https://herald.example.com/provider_callback/twilio/acme/vnd_01/';
    await sendChecked(twilioProvider, vendorOf('twilio', config()), sms, {
      secrets: [TOKEN],
      context: { outbound: LOOPBACK_ALLOWED.outbound, statusCallbackUrl: callbackUrl },
    });
    expect(new URLSearchParams(peer.last.text).get('StatusCallback')).toBe(callbackUrl);
    await send();
    expect(new URLSearchParams(peer.last.text).has('StatusCallback')).toBe(false);
  });

  it('checks a callback signature as Twilio documents it', () => {
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const params = {
      CallSid: 'CA1234567890ABCDE',
      Caller: '+12349013030',
      Digits: '1234',
      From: '+12349013030',
      To: '+18005551212',
    };
    // Twilio's own example (https://www.twilio.com/docs/usage/security#validating-requests).
    expect(twilioSignature('12345', url, params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    expect(isTwilioSigned('12345', url, params, '0/KCTR6DLpKmkAf8muzZqo1nDgQ=')).toBe(true);
    expect(isTwilioSigned('12345', url, { ...params, Digits: '1235' }, '0/KCTR6DLpKmkAf8muzZqo1nDgQ=')).toBe(false);
    expect(isTwilioSigned('12345', url, params, undefined)).toBe(false);
  });

  it('sends through a Messaging Service when from is its SID', async () => {
    peer.answer({ status: 201, body: { sid: 'SM125' } });
    const service = 'MG0123456789abcdef0123456789abcdef';
    await send(sms, { from: service });
    const form = new URLSearchParams(peer.last.text);
    expect(form.get('MessagingServiceSid')).toBe(service);
    expect(form.has('From')).toBe(false);
  });

  it("refuses for good on a 4xx, with Twilio's error code and message", async () => {
    const error = { code: 21211, message: "The 'To' number +14155550123 is not a valid phone number.", status: 400 };
    peer.answer({ status: 400, body: error });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: "provider answered 400 (21211: The 'To' number +14155550123 is not a valid phone number.)",
      providerResponse: error,
    });
  });

  it('retries a 5xx', async () => {
    peer.answer({ status: 503, body: 'upstream down' });
    expect(await send()).toEqual({ kind: 'retry', reason: 'provider answered 503', providerResponse: 'upstream down' });
  });

  it('retries a 429 after its Retry-After', async () => {
    const error = { code: 20429, message: 'Too Many Requests', status: 429 };
    peer.answer({ status: 429, headers: { 'retry-after': '3' }, body: error });
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'provider answered 429 (20429: Too Many Requests)',
      retryAfterMs: 3000,
      providerResponse: error,
    });
  });

  it('retries when the API does not answer in time', async () => {
    peer.answer('hang');
    expect(await send(sms, { timeout_ms: 300 })).toEqual({ kind: 'retry', reason: 'timed out after 300 ms' });
  });

  it('retries when the connection is reset or refused', async () => {
    peer.answer('reset');
    expect(await send()).toEqual({ kind: 'retry', reason: 'UND_ERR_SOCKET: other side closed' });
    const port = await closedPort();
    expect(await send(sms, { base_url: `http://127.0.0.1:${port}` })).toEqual({
      kind: 'retry',
      reason: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('stops when the engine aborts the attempt', async () => {
    peer.answer('hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await send(sms, {}, controller.signal)).toEqual({
      kind: 'retry',
      reason: 'aborted before the provider answered',
    });
  });

  it('never returns the auth token, even when the API echoes it', async () => {
    peer.answer({ status: 401, body: { code: 20003, message: `Authenticate: bad token ${TOKEN}` } });
    const outcome = await send();
    expect(outcome).toEqual({
      kind: 'failed',
      reason: 'provider answered 401 (20003: Authenticate: bad token ********)',
      providerResponse: { code: 20003, message: 'Authenticate: bad token ********' },
    });
  });

  it('fails without calling the API when the recipient or the content cannot make a message', async () => {
    expect(await send(deliveryRequest('sms', { phone: 1 }, { text: 'x' }))).toEqual({
      kind: 'failed',
      reason: "the recipient's $sms entry is not a phone number",
    });
    expect(await send(deliveryRequest('sms', '+14155550123', { text: '' }))).toEqual({
      kind: 'failed',
      reason: 'the rendered content has no text',
    });
    expect(peer.requests).toHaveLength(0);
  });
});
