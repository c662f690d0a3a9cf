import { generateKeyPairSync } from 'node:crypto';
import { jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fcmProvider } from '../../../src/channels/providers/fcm.js';
import { deliveryRequest, sendChecked, vendorOf } from '../../support/deliveries.js';
import { closedPort, HttpPeer, type PeerAnswer, type RecordedRequest } from '../../support/http-peer.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const EMAIL = 'herald@project-1.iam.gserviceaccount.com';
const SEND_PATH = '/v1/projects/project-1/messages:send';
let peer: HttpPeer;
let tokenNo = 0;

/** The token endpoint grants a new token for each valid assertion; FCM answers `fcm` once the token checks out. */
function route(fcm: PeerAnswer): (request: RecordedRequest) => PeerAnswer {
  return (request: RecordedRequest) =>
    request.path === '/token'
      ? { status: 200, body: { access_token: `ya29.token-${++tokenNo}`, expires_in: 3599, token_type: 'Bearer' } }
      : fcm;
}

// Each test gets its own service account email, so a token cached by one test is not reused by the next.
let account = 0;
const config = (extra: Record<string, unknown> = {}) => ({
  type: 'service_account',
  project_id: 'project-1',
  private_key_id: 'abc123',
  client_email: EMAIL.replace('herald', `herald-${account}`),
  private_key: PRIVATE_KEY,
  token_uri: `${peer.url}/token`,
  base_url: peer.url,
  timeout_ms: 5000,
  ...extra,
});
const push = deliveryRequest('androidpush', 'fcm-registration-token-1', {
  title: 'Order shipped',
  body: 'It arrives Tuesday',
  data: { order_id: 'o-1', items: 3 },
});
const send = (extra: Record<string, unknown> = {}, request = push) =>
  sendChecked(fcmProvider, vendorOf('fcm', config(extra)), request, { secrets: [PRIVATE_KEY] });

const sends = () => peer.requests.filter((request) => request.path === SEND_PATH);

beforeAll(async () => {
  peer = await HttpPeer.start();
});
beforeEach(() => {
  peer.reset();
  account++;
});
afterAll(() => peer.close());

describe('fcm provider', () => {
  it('gets a token with a signed JWT, then sends the message with it', async () => {
    peer.answerAlways(route({ status: 200, body: { name: 'projects/project-1/messages/0:1' } }));
    expect(await send()).toEqual({
      kind: 'sent',
      providerMessageId: 'projects/project-1/messages/0:1',
      providerResponse: { name: 'projects/project-1/messages/0:1' },
    });
    const [tokenRequest, sendRequest] = peer.requests;
    expect(tokenRequest!.path).toBe('/token');
    const form = new URLSearchParams(tokenRequest!.text);
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const { payload, protectedHeader } = await jwtVerify(form.get('assertion')!, publicKey, {
      issuer: config().client_email,
      audience: `${peer.url}/token`,
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.scope).toBe('https://www.googleapis.com/auth/firebase.messaging');
    expect(payload.exp! - payload.iat!).toBe(3600);

    expect(sendRequest!.path).toBe(SEND_PATH);
    expect(sendRequest!.headers.authorization).toBe(`Bearer ya29.token-${tokenNo}`);
    expect(JSON.parse(sendRequest!.text)).toEqual({
      message: {
        token: 'fcm-registration-token-1',
        notification: { title: 'Order shipped', body: 'It arrives Tuesday' },
        data: { order_id: 'o-1', items: '3' },
      },
    });
  });

  it('reuses the token until it nears expiry, and gets a new one once when a cached token is refused', async () => {
    peer.answerAlways(route({ status: 200, body: { name: 'n' } }));
    await send();
    await send();
    expect(peer.requests.map((request) => request.path)).toEqual(['/token', SEND_PATH, SEND_PATH]);

    peer.reset();
    peer.answerAlways((request) =>
      request.headers.authorization === `Bearer ya29.token-${tokenNo}` && sends().length > 1
        ? { status: 200, body: { name: 'n2' } }
        : route({ status: 401, body: { error: { code: 401, status: 'UNAUTHENTICATED', message: 'revoked' } } })(
            request,
          ),
    );
    expect((await send()).kind).toBe('sent');
    expect(peer.requests.map((request) => request.path)).toEqual([SEND_PATH, '/token', SEND_PATH]);
  });

  it("refuses for good an unregistered token, with FCM's error code", async () => {
    const error = {
      error: {
        code: 404,
        message: 'Requested entity was not found.',
        status: 'NOT_FOUND',
        details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
      },
    };
    peer.answerAlways(route({ status: 404, body: error }));
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'provider answered 404 (UNREGISTERED: Requested entity was not found.)',
      providerResponse: error,
      // The token is dead: the engine marks it inactive on the user (provider feedback).
      deadAddress: true,
    });
  });

  it('retries a 5xx and a 429 after its Retry-After', async () => {
    const unavailable = {
      error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' },
    };
    peer.answerAlways(route({ status: 503, body: unavailable }));
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'provider answered 503 (UNAVAILABLE: The service is currently unavailable.)',
      providerResponse: unavailable,
    });
    const quota = { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } };
    peer.answerAlways(route({ status: 429, headers: { 'retry-after': '12' }, body: quota }));
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'provider answered 429 (RESOURCE_EXHAUSTED: Quota exceeded)',
      retryAfterMs: 12_000,
      providerResponse: quota,
    });
  });

  it('retries on a timeout and a reset, of FCM or of the token endpoint', async () => {
    peer.answerAlways(route('hang'));
    expect(await send({ timeout_ms: 300 })).toEqual({ kind: 'retry', reason: 'timed out after 300 ms' });
    peer.answerAlways(route('reset'));
    expect(await send()).toEqual({ kind: 'retry', reason: 'UND_ERR_SOCKET: other side closed' });
    account++;
    peer.answerAlways('hang');
    expect(await send({ timeout_ms: 300 })).toEqual({
      kind: 'retry',
      reason: 'token endpoint: timed out after 300 ms',
    });
    const port = await closedPort();
    expect(await send({ token_uri: `http://127.0.0.1:${port}/token` })).toEqual({
      kind: 'retry',
      reason: `token endpoint: ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('fails for good when the token endpoint refuses the service account, keeping the private key out', async () => {
    peer.answerAlways({
      status: 400,
      body: { error: 'invalid_grant', error_description: `Invalid JWT Signature for ${PRIVATE_KEY}` },
    });
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'token endpoint: provider answered 400 (invalid_grant: Invalid JWT Signature for ********)',
      providerResponse: { error: 'invalid_grant' },
    });
    expect(sends()).toHaveLength(0);
  });

  it('fails for good on a private key that is not a PEM key, without calling anyone', async () => {
    expect(await send({ private_key: 'not-a-key-at-all' })).toEqual({
      kind: 'failed',
      reason: 'private_key is not a PEM (PKCS#8) RSA private key',
    });
    expect(await send({}, deliveryRequest('androidpush', 'token', { data: { a: 1 } }))).toEqual({
      kind: 'failed',
      reason: 'the rendered content has neither title nor body',
    });
    expect(peer.requests).toHaveLength(0);
  });

  it('accepts a private key whose newlines were escaped', async () => {
    peer.answerAlways(route({ status: 200, body: { name: 'n' } }));
    expect((await send({ private_key: PRIVATE_KEY.replace(/\n/g, '\\n') })).kind).toBe('sent');
  });
});
