import { generateKeyPairSync } from 'node:crypto';
import webpush from 'web-push';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { closedPort, HttpPeer } from '../support/http-peer.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { configClient } from '../support/config.js';

const USER = 'herald';
const PASSWORD = 'smtp-password-71c0e2a9b4';
const SID = 'AC00000000000000000000000000000009';
const TOKEN = 'twilio-auth-token-0b6e5d4c3a';
const SECRET = 'whsec-test-action-0123456789';

/** Creates a vendor and returns a function that tests it with the given body (none when undefined). */
function vendorTester(t: () => TestApp) {
  let ws: WorkspaceFixture;
  beforeAll(async () => {
    ws = await createWorkspaceFixture(t());
  });
  return async (vendor: Record<string, unknown>, body?: unknown) => {
    const client = configClient(t, ws);
    const created = await client.inject('POST', '/vendor/', vendor);
    expect(created.statusCode).toBe(201);
    const response = await client.inject('POST', `/vendor/${created.json().id}/test/`, body);
    return { status: response.statusCode, body: response.json(), text: response.body };
  };
}

describe('the vendor test action', () => {
  const t = useTestApp();
  const test = vendorTester(t);
  let sink: SmtpSink;
  let peer: HttpPeer;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    sink = await SmtpSink.start({ username: USER, password: PASSWORD });
    peer = await HttpPeer.start();
    receiver = await startWebhookReceiver(SECRET);
  });
  beforeEach(() => {
    sink.mails.length = 0;
    peer.reset();
  });
  afterAll(async () => {
    await sink.close();
    await peer.close();
    await receiver.close();
  });

  const smtp = (extra: Record<string, unknown> = {}) => ({
    channel: 'email',
    provider: 'smtp',
    config: {
      host: '127.0.0.1',
      port: sink.port,
      secure: false,
      username: USER,
      password: PASSWORD,
      from_email: 'notifications@example.com',
      timeout_ms: 3000,
      ...extra,
    },
  });

  it('SMTP: a good config passes the connection and login check, and nothing is sent', async () => {
    const { status, body } = await test(smtp());
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, mode: 'check', error: null, retryable: false, provider_response: null });
    expect(body.duration_ms).toBeGreaterThanOrEqual(0);
    expect(sink.mails).toHaveLength(0);
  });

  it("SMTP: a wrong password is answered with the server's refusal, the password masked", async () => {
    const { status, body, text } = await test(smtp({ password: 'wrong-password-5e1f' }));
    expect(status).toBe(200);
    expect(body).toMatchObject({
      ok: false,
      mode: 'check',
      error: 'SMTP server answered AUTH PLAIN with 535 Invalid login for password ********',
      retryable: false,
    });
    expect(text).not.toContain('wrong-password-5e1f');
  });

  it('SMTP: a wrong host or port says the connection was refused, and that it is transient', async () => {
    const port = await closedPort();
    const { body } = await test(smtp({ port }));
    expect(body).toMatchObject({ ok: false, mode: 'check', retryable: true });
    expect(body.error).toBe(`ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`);
    const unknownHost = await test(smtp({ host: 'smtp.invalid' }));
    expect(unknownHost.body).toMatchObject({ ok: false, retryable: true });
    expect(unknownHost.body.error).toMatch(/^ENOTFOUND: .*smtp\.invalid/);
  });

  it('SMTP: with `to`, sends one test message there', async () => {
    const { body } = await test(smtp(), { to: 'ops@example.org' });
    expect(body).toMatchObject({ ok: true, mode: 'message', error: null });
    expect(sink.mails).toHaveLength(1);
    expect(sink.mails[0]!.envelope.to).toEqual(['ops@example.org']);
    expect(sink.mails[0]!.mail.subject).toBe('Herald test message');
    expect(sink.mails[0]!.mail.text?.trim()).toMatch(/^A test message from Herald for vendor vnd_/);
    const bad = await test(smtp(), { to: 'not-an-address' });
    expect(bad.body).toMatchObject({
      ok: false,
      mode: 'message',
      error: "the recipient's $email entry is not an email address",
    });
  });

  const twilio = () => ({
    channel: 'sms',
    provider: 'twilio',
    config: { account_sid: SID, auth_token: TOKEN, from: '+14155550100', base_url: peer.url, timeout_ms: 3000 },
  });

  it('Twilio: fetches the account with the credentials, as the Messages API would be called', async () => {
    peer.answer({ status: 200, body: { sid: SID, status: 'active', friendly_name: 'Main', auth_token: TOKEN } });
    const { body, text } = await test(twilio());
    expect(body).toEqual({
      ok: true,
      mode: 'check',
      error: null,
      retryable: false,
      provider_response: { status: 'active' },
      duration_ms: body.duration_ms,
    });
    expect(text).not.toContain(TOKEN);
    expect(peer.last.method).toBe('GET');
    expect(peer.last.path).toBe(`/2010-04-01/Accounts/${SID}.json`);
    expect(peer.last.headers.authorization).toBe(`Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`);
    expect(peer.requests).toHaveLength(1);
  });

  it("Twilio: wrong credentials, a suspended account and an outage are each answered with the provider's words", async () => {
    peer.answer(
      { status: 401, body: { code: 20003, message: 'Authenticate', status: 401 } },
      { status: 200, body: { sid: SID, status: 'suspended' } },
      { status: 503, body: 'upstream down' },
    );
    expect((await test(twilio())).body).toMatchObject({
      ok: false,
      error: 'provider answered 401 (20003: Authenticate)',
      retryable: false,
      provider_response: { code: 20003, message: 'Authenticate', status: 401 },
    });
    expect((await test(twilio())).body).toMatchObject({ ok: false, error: 'the account is suspended' });
    expect((await test(twilio())).body).toMatchObject({ ok: false, error: 'provider answered 503', retryable: true });
  });

  it('FCM: asks the token endpoint for an access token; a refused key is its answer', async () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const fcm = {
      channel: 'androidpush',
      provider: 'fcm',
      config: {
        project_id: 'demo',
        client_email: 'svc@demo.iam.gserviceaccount.com',
        private_key: privateKey,
        token_uri: `${peer.url}/token`,
        base_url: peer.url,
      },
    };
    peer.answer(
      { status: 200, body: { access_token: 'ya29.token', expires_in: 3600 } },
      { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } },
    );
    expect((await test(fcm)).body).toMatchObject({ ok: true, mode: 'check' });
    expect(peer.last.path).toBe('/token');
    expect((await test(fcm)).body).toMatchObject({
      ok: false,
      error: 'token endpoint: provider answered 400 (invalid_grant: Invalid JWT Signature.)',
    });
    expect(peer.requests).toHaveLength(2);
  });

  it('APNs and VAPID: a dry check of the key, documented as such', async () => {
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const apns = (key: string) => ({
      channel: 'iospush',
      provider: 'apns',
      config: { private_key: key, key_id: 'ABC123DEFG', team_id: 'TEAM123456', bundle_id: 'com.example.app' },
    });
    expect((await test(apns(ec.privateKey))).body).toMatchObject({ ok: true, mode: 'check' });
    expect((await test(apns('not a key at all'))).body).toMatchObject({
      ok: false,
      error: 'private_key is not the PEM contents of an APNs .p8 key',
    });
    const keys = webpush.generateVAPIDKeys();
    const vapid = (privateKey: string) => ({
      channel: 'webpush',
      provider: 'vapid',
      config: { public_key: keys.publicKey, private_key: privateKey, subject: 'mailto:ops@example.com' },
    });
    expect((await test(vapid(keys.privateKey))).body).toMatchObject({ ok: true, mode: 'check' });
    expect((await test(vapid('c2hvcnQ'))).body).toMatchObject({
      ok: false,
      error: 'VAPID keys not usable: Vapid private key should be 32 bytes long when decoded.',
    });
  });

  it('webhook: without a check of its own, sends one signed test message to its URL', async () => {
    const webhook = { channel: 'email', provider: 'webhook', config: { url: receiver.url, secret: SECRET } };
    const before = receiver.received.length;
    expect((await test(webhook)).body).toMatchObject({ ok: true, mode: 'message' });
    const delivery = receiver.received[before]!;
    expect(delivery.signatureValid).toBe(true);
    expect(delivery.body).toMatchObject({
      channel: 'email',
      recipient: { distinct_id: '$vendor_test' },
      workflow: { slug: 'vendor-test' },
      content: { subject: 'Herald test message' },
    });
    expect(delivery.body.message_id).toMatch(/^test_/);
    receiver.plan('$vendor_test', [{ status: 503 }]);
    expect((await test(webhook)).body).toMatchObject({
      ok: false,
      mode: 'message',
      error: 'provider answered 503',
      retryable: true,
    });
  });

  it("incoming webhook: a `to` on a private address meets the outbound policy; the vendor's URL does not", async () => {
    const slack = (url?: string) => ({ channel: 'slack', provider: 'incoming_webhook', config: url ? { url } : {} });
    peer.answerAlways({ status: 200, body: 'ok' });
    expect((await test(slack(), { to: { incoming_webhook: { url: `${peer.url}/hook` } } })).body).toMatchObject({
      ok: false,
      mode: 'message',
      error: expect.stringMatching(/^destination refused: 127\.0\.0\.1 is a loopback address/),
    });
    expect(peer.requests).toHaveLength(0);
    expect((await test(slack(`${peer.url}/ops`))).body).toMatchObject({ ok: true, mode: 'message' });
    expect(JSON.parse(peer.last.text)).toEqual({ text: expect.stringMatching(/^A test message from Herald/) });
    expect((await test(slack())).body).toMatchObject({
      ok: false,
      error: "the recipient's $slack entry has no incoming_webhook.url and the vendor no url",
    });
  });

  it('answers 404 for an unknown vendor and 400 for a body it does not know', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const missing = await client.inject('POST', '/vendor/vnd_01JUNKNOWN0000000000000000/test/', {});
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 404, message: 'vendor not found' });
    const created = await client.inject('POST', '/vendor/', smtp());
    const unknownKey = await client.inject('POST', `/vendor/${created.json().id}/test/`, { recipient: 'x' });
    expect(unknownKey.statusCode).toBe(400);
    // Another workspace's vendor is not found.
    const other = await createWorkspaceFixture(t());
    expect((await configClient(t, other).inject('POST', `/vendor/${created.json().id}/test/`)).statusCode).toBe(404);
  });
});

describe('the vendor test action where OUTBOUND_ALLOW_PRIVATE is set', () => {
  const t = useTestApp({ OUTBOUND_ALLOW_PRIVATE: 'true' });
  const test = vendorTester(t);
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  afterAll(() => peer.close());

  it('sends the test message to a loopback `to`, and still refuses the metadata address', async () => {
    const slack = { channel: 'slack', provider: 'incoming_webhook', config: {} };
    peer.answer({ status: 200, body: 'ok' });
    expect((await test(slack, { to: { incoming_webhook: { url: `${peer.url}/hook` } } })).body).toMatchObject({
      ok: true,
      mode: 'message',
      provider_response: 'ok',
    });
    expect(peer.last.path).toBe('/hook');
    expect(
      (await test(slack, { to: { incoming_webhook: { url: 'http://169.254.169.254/latest/' } } })).body,
    ).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^destination refused: 169\.254\.169\.254 is a link-local/),
    });
  });
});
