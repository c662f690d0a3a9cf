import { createHash } from 'node:crypto';
import http2 from 'node:http2';
import { Type } from '@sinclair/typebox';
import type { DeliveryOutcome, DeliveryRequest, Provider, VendorConfig } from '../provider.js';
import {
  attemptDeadline,
  baseUrl,
  baseUrlOf,
  deadAddress,
  channelValue,
  isObject,
  nonEmptyString,
  outcomeOfAnswer,
  refused,
  timeoutOf,
  TimeoutMsSchema,
  withoutSecrets,
  type HttpAnswer,
  loadJose,
} from './shared.js';

const APNS_API = 'https://api.push.apple.com';
const FOUR_WEEKS_S = 28 * 24 * 3600;

/**
 * iOS push over APNs (HTTP/2) with token authentication: a JWT signed (ES256) with the .p8 key Apple issues, naming
 * the key and the team. `base_url` is `https://api.sandbox.push.apple.com` for development builds.
 */
export const ApnsConfigSchema = Type.Object(
  {
    private_key: Type.String({
      minLength: 1,
      maxLength: 4096,
      description: 'the contents of the .p8 key file (secret), -----BEGIN PRIVATE KEY----- included',
    }),
    key_id: Type.String({
      minLength: 1,
      maxLength: 32,
      description: "the key's id (10 characters, from the key's name)",
    }),
    team_id: Type.String({ minLength: 1, maxLength: 32, description: 'the Apple Developer team id (10 characters)' }),
    bundle_id: Type.String({ minLength: 1, maxLength: 256, description: "the app's bundle id, sent as apns-topic" }),
    ttl_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: FOUR_WEEKS_S,
        description: 'how long APNs keeps the notification for an offline device (default 4 weeks; 0: try once)',
      }),
    ),
    base_url: baseUrl(APNS_API),
    timeout_ms: TimeoutMsSchema,
  },
  { additionalProperties: false },
);

/**
 * Apple refuses a token older than an hour and answers TooManyProviderTokenUpdates to one renewed more often than
 * every 20 minutes, so a token is kept 50 minutes and messages sent at once share the one being signed.
 */
const TOKEN_LIFETIME_MS = 50 * 60_000;
const tokens = new Map<string, { jwt: Promise<string | undefined>; issuedAt: number }>();

const tokenKey = (config: { private_key: string; key_id: string; team_id: string }) =>
  createHash('sha256').update(`${config.team_id}\n${config.key_id}\n${config.private_key}`).digest('hex');

async function signToken(config: { private_key: string; key_id: string; team_id: string }) {
  const { importPKCS8, SignJWT } = await loadJose();
  try {
    const signingKey = await importPKCS8(config.private_key.replace(/\\n/g, '\n'), 'ES256');
    return await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: config.key_id })
      .setIssuer(config.team_id)
      .setIssuedAt()
      .sign(signingKey);
  } catch {
    return undefined;
  }
}

/** The provider token, and whether it was signed for this message; undefined when the key is not a key. */
async function providerToken(
  config: { private_key: string; key_id: string; team_id: string },
  reuse: boolean,
): Promise<{ jwt: string; fresh: boolean } | undefined> {
  const key = tokenKey(config);
  const cached = tokens.get(key);
  if (reuse && cached && Date.now() - cached.issuedAt < TOKEN_LIFETIME_MS) {
    const jwt = await cached.jwt;
    return jwt === undefined ? undefined : { jwt, fresh: false };
  }
  const signing = { jwt: signToken(config), issuedAt: Date.now() };
  tokens.set(key, signing);
  const jwt = await signing.jwt;
  if (jwt === undefined) {
    if (tokens.get(key) === signing) tokens.delete(key);
    return undefined;
  }
  return { jwt, fresh: true };
}

/**
 * One HTTP/2 connection per APNs origin, kept open between messages as Apple asks (opening one per notification
 * is treated as a denial-of-service attempt), closed after a minute idle, and never keeping the process alive.
 */
const IDLE_MS = 60_000;
const sessions = new Map<string, http2.ClientHttp2Session>();

function sessionFor(origin: string): http2.ClientHttp2Session {
  const open = sessions.get(origin);
  if (open && !open.closed && !open.destroyed) return open;
  const session = http2.connect(origin);
  const forget = () => {
    if (sessions.get(origin) === session) sessions.delete(origin);
  };
  // A failed session's error also ends its streams; the stream's handler reports it.
  session.on('error', forget);
  session.on('close', forget);
  session.on('goaway', forget);
  session.setTimeout(IDLE_MS, () => session.close());
  session.unref();
  sessions.set(origin, session);
  return session;
}

function post(
  origin: string,
  headers: http2.OutgoingHttpHeaders,
  body: string,
  signal: AbortSignal,
): Promise<HttpAnswer & { apnsId: string | undefined }> {
  return new Promise((resolve, reject) => {
    let stream: http2.ClientHttp2Stream;
    try {
      const session = sessionFor(origin);
      stream = session.request(headers, { signal });
    } catch (error) {
      reject(error);
      return;
    }
    let status = 0;
    let apnsId: string | undefined;
    const answerHeaders = new Headers();
    const chunks: Buffer[] = [];
    stream.on('response', (received) => {
      status = Number(received[':status']);
      apnsId = typeof received['apns-id'] === 'string' ? received['apns-id'] : undefined;
      for (const [name, value] of Object.entries(received))
        if (!name.startsWith(':') && typeof value === 'string') answerHeaders.set(name, value);
    });
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closedEarly = () =>
      reject(Object.assign(new Error('the connection closed before APNs answered'), { code: 'ECONNRESET' }));
    stream.on('end', () => {
      if (status === 0) return closedEarly();
      const text = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown = text === '' ? null : text;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      resolve({ status, headers: answerHeaders, body: parsed, apnsId });
    });
    // A stream cancelled because its connection failed carries the connection's error as its cause.
    stream.on('error', (error: Error & { code?: string }) =>
      reject(error.code === 'ERR_HTTP2_STREAM_CANCEL' && error.cause instanceof Error ? error.cause : error),
    );
    stream.on('close', () => {
      if (status === 0) closedEarly();
    });
    stream.end(body);
  });
}

/** The `aps` dictionary from the rendered `{title, body, data}`; `data`'s keys go beside it, as the app reads them. */
function payloadOf(content: Record<string, unknown>) {
  const { title, body, data, badge, sound } = content;
  const aps = {
    alert: { ...(nonEmptyString(title) ? { title } : {}), ...(nonEmptyString(body) ? { body } : {}) },
    ...(typeof badge === 'number' ? { badge } : {}),
    ...(nonEmptyString(sound) ? { sound } : {}),
  };
  const custom = isObject(data) ? Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'aps')) : {};
  return { ...custom, aps };
}

async function send(vendor: VendorConfig, request: DeliveryRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
  const config = vendor.config;
  const { private_key: privateKey, key_id: keyId, team_id: teamId, bundle_id: bundleId } = config;
  if (![privateKey, keyId, teamId, bundleId].every(nonEmptyString))
    return refused('vendor config needs private_key, key_id, team_id and bundle_id');
  const key = { private_key: privateKey as string, key_id: keyId as string, team_id: teamId as string };
  const deviceToken = channelValue(request.channelIdentity);
  if (!nonEmptyString(deviceToken) || !/^[0-9A-Fa-f]{16,200}$/.test(deviceToken))
    return refused("the recipient's $iospush entry is not an APNs device token (hex)");
  const { title, body } = request.content;
  if (!nonEmptyString(title) && !nonEmptyString(body))
    return refused('the rendered content has neither title nor body');

  const origin = baseUrlOf(config, APNS_API);
  const ttl = typeof config.ttl_seconds === 'number' ? config.ttl_seconds : FOUR_WEEKS_S;
  const payload = JSON.stringify(payloadOf(request.content));
  const deadline = attemptDeadline(signal, timeoutOf(config));
  for (let reuse = true; ; reuse = false) {
    const token = await providerToken(key, reuse);
    if (!token) return refused('private_key is not the PEM contents of an APNs .p8 key');
    let answer: Awaited<ReturnType<typeof post>>;
    try {
      answer = await post(
        origin,
        {
          ':method': 'POST',
          ':path': `/3/device/${deviceToken}`,
          authorization: `bearer ${token.jwt}`,
          'apns-topic': bundleId as string,
          'apns-push-type': 'alert',
          'apns-priority': '10',
          // Without an expiration APNs tries once and drops the notification for a device that is offline.
          'apns-expiration': String(ttl === 0 ? 0 : Math.floor(Date.now() / 1000) + ttl),
          'content-type': 'application/json',
        },
        payload,
        deadline.signal,
      );
    } catch (error) {
      return deadline.outcomeOf(error);
    }
    const reason = isObject(answer.body) && nonEmptyString(answer.body.reason) ? answer.body.reason : undefined;
    // A token past its hour (a clock that drifted) is refused: sign a new one and send again, once.
    if (answer.status === 403 && reason === 'ExpiredProviderToken' && !token.fresh) continue;
    const outcome = outcomeOfAnswer(answer, reason);
    // 410 Unregistered: the device token is no longer active for the topic.
    if (answer.status === 410) return deadAddress(outcome);
    if (outcome.kind === 'sent' && answer.apnsId) return { ...outcome, providerMessageId: answer.apnsId };
    return outcome;
  }
}

/**
 * A dry check: APNs judges a provider token only beside a device token, so this signs one, which proves the key
 * usable; a test message to a device (the `to` of the test action) is the full check.
 */
async function check(vendor: VendorConfig): Promise<DeliveryOutcome> {
  const { private_key: privateKey, key_id: keyId, team_id: teamId, bundle_id: bundleId } = vendor.config;
  if (![privateKey, keyId, teamId, bundleId].every(nonEmptyString))
    return refused('vendor config needs private_key, key_id, team_id and bundle_id');
  const jwt = await signToken({
    private_key: privateKey as string,
    key_id: keyId as string,
    team_id: teamId as string,
  });
  return jwt ? { kind: 'sent' } : refused('private_key is not the PEM contents of an APNs .p8 key');
}

export const apnsProvider: Provider = withoutSecrets({
  name: 'apns',
  channels: ['iospush'],
  configSchema: ApnsConfigSchema,
  send,
  check,
});
