import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { DeliveryOutcome, DeliveryRequest, Provider, VendorConfig } from '../provider.js';
import {
  attemptDeadline,
  baseUrl,
  baseUrlOf,
  deadAddress,
  channelValue,
  exchange,
  apiUrl,
  isObject,
  nonEmptyString,
  outcomeOfAnswer,
  refused,
  timeoutOf,
  TimeoutMsSchema,
  withoutSecrets,
  loadJose,
} from './shared.js';

const FCM_API = 'https://fcm.googleapis.com';
const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * Android push over FCM HTTP v1. The config is the service account JSON file as Google hands it out (its other keys,
 * such as `type` or `client_id`, are accepted and ignored), plus `base_url`. The access token comes from the
 * account's `token_uri` by a JWT signed with its key (RFC 7523), as Google's client libraries do; it is cached until
 * a minute before it expires. No Google library is used: none lets the FCM endpoint be pointed elsewhere.
 */
export const FcmConfigSchema = Type.Object(
  {
    project_id: Type.String({ minLength: 1, maxLength: 128, description: 'the Firebase project id' }),
    client_email: Type.String({ minLength: 3, maxLength: 320, description: "the service account's email" }),
    private_key: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: "the service account's PEM private key (secret), as in its JSON file",
    }),
    token_uri: Type.Optional(apiUrl(`the OAuth2 token endpoint, default ${GOOGLE_TOKEN_URI}; no credentials`)),
    base_url: baseUrl(FCM_API),
    timeout_ms: TimeoutMsSchema,
  },
  { additionalProperties: true },
);

interface CachedToken {
  accessToken: string;
  expiresAt: number;
}

const REFRESH_MARGIN_MS = 60_000;
const tokens = new Map<string, CachedToken>();

const tokenKey = (tokenUri: string, email: string, privateKey: string) =>
  createHash('sha256').update(`${tokenUri}\n${email}\n${privateKey}`).digest('hex');

type TokenResult = { ok: true; accessToken: string; fresh: boolean } | { ok: false; outcome: DeliveryOutcome };

async function accessToken(
  config: { client_email: string; private_key: string; token_uri: string },
  deadline: ReturnType<typeof attemptDeadline>,
  reuse: boolean,
): Promise<TokenResult> {
  const key = tokenKey(config.token_uri, config.client_email, config.private_key);
  const cached = tokens.get(key);
  if (reuse && cached && cached.expiresAt - REFRESH_MARGIN_MS > Date.now())
    return { ok: true, accessToken: cached.accessToken, fresh: false };

  let assertion: string;
  const { importPKCS8, SignJWT } = await loadJose();
  try {
    // Service account files keep the key's newlines escaped when pasted through some tools.
    const pem = config.private_key.replace(/\\n/g, '\n');
    const signingKey = await importPKCS8(pem, 'RS256');
    assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(config.client_email)
      .setAudience(config.token_uri)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(signingKey);
  } catch {
    return { ok: false, outcome: refused('private_key is not a PEM (PKCS#8) RSA private key') };
  }
  const result = await exchange(
    config.token_uri,
    {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    },
    deadline,
  );
  if (!result.ok) return { ok: false, outcome: prefixed('token endpoint', result.outcome) };
  const { answer } = result;
  const body = isObject(answer.body) ? answer.body : {};
  if (answer.status >= 200 && answer.status < 300 && nonEmptyString(body.access_token)) {
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3600_000;
    tokens.set(key, { accessToken: body.access_token, expiresAt: Date.now() + lifetime });
    return { ok: true, accessToken: body.access_token, fresh: true };
  }
  // The token answer is never kept whole: on success it is the token itself.
  const detail = nonEmptyString(body.error)
    ? [body.error, body.error_description].filter(nonEmptyString).join(': ')
    : undefined;
  const outcome = outcomeOfAnswer(
    { ...answer, body: nonEmptyString(body.error) ? { error: body.error } : null },
    detail,
  );
  return {
    ok: false,
    outcome: prefixed(
      'token endpoint',
      outcome.kind === 'sent' ? refused('answered without an access_token') : outcome,
    ),
  };
}

const prefixed = (what: string, outcome: DeliveryOutcome): DeliveryOutcome =>
  outcome.kind === 'sent' ? outcome : { ...outcome, reason: `${what}: ${outcome.reason}` };

/** FCM's `data` is a map of strings. */
function stringMap(data: unknown): Record<string, string> | undefined {
  if (!isObject(data)) return undefined;
  const entries = Object.entries(data).filter(([, value]) => value !== undefined && value !== null);
  if (entries.length === 0) return undefined;
  return Object.fromEntries(
    entries.map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

/** FCM's error body: `{error: {code, message, status, details: [{errorCode}]}}`. */
function fcmError(body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body.error)) return undefined;
  const { message, status, details } = body.error;
  const errorCode = Array.isArray(details)
    ? details.map((detail) => (isObject(detail) ? detail.errorCode : undefined)).find(nonEmptyString)
    : undefined;
  const code = errorCode ?? (nonEmptyString(status) ? status : undefined);
  if (!code) return nonEmptyString(message) ? message : undefined;
  return nonEmptyString(message) ? `${code}: ${message}` : code;
}

async function send(vendor: VendorConfig, request: DeliveryRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
  const config = vendor.config;
  const { project_id: projectId, client_email: clientEmail, private_key: privateKey } = config;
  if (!nonEmptyString(projectId) || !nonEmptyString(clientEmail) || !nonEmptyString(privateKey))
    return refused('vendor config needs project_id, client_email and private_key (from the service account JSON)');
  const token = channelValue(request.channelIdentity);
  if (!nonEmptyString(token)) return refused("the recipient's $androidpush entry is not a registration token");
  const { title, body, data } = request.content;
  if (!nonEmptyString(title) && !nonEmptyString(body))
    return refused('the rendered content has neither title nor body');

  const message = {
    token,
    notification: {
      ...(nonEmptyString(title) ? { title } : {}),
      ...(nonEmptyString(body) ? { body } : {}),
    },
    ...(stringMap(data) ? { data: stringMap(data) } : {}),
  };
  const account = {
    client_email: clientEmail,
    private_key: privateKey,
    token_uri: nonEmptyString(config.token_uri) ? config.token_uri : GOOGLE_TOKEN_URI,
  };
  const url = `${baseUrlOf(config, FCM_API)}/v1/projects/${encodeURIComponent(projectId)}/messages:send`;
  const deadline = attemptDeadline(signal, timeoutOf(config));

  for (let reuse = true; ; reuse = false) {
    const auth = await accessToken(account, deadline, reuse);
    if (!auth.ok) return auth.outcome;
    const result = await exchange(
      url,
      {
        headers: {
          authorization: `Bearer ${auth.accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ message }),
      },
      deadline,
    );
    if (!result.ok) return result.outcome;
    const { answer } = result;
    // A cached token can be revoked before it expires: get a new one and send again, once.
    if (answer.status === 401 && !auth.fresh) continue;
    if (answer.status === 401) tokens.delete(tokenKey(account.token_uri, account.client_email, account.private_key));
    const error = fcmError(answer.body);
    const outcome = outcomeOfAnswer(answer, error);
    // The token is no longer registered (the app was uninstalled, the token rotated): never to be used again.
    if (error?.startsWith('UNREGISTERED')) return deadAddress(outcome);
    if (outcome.kind === 'sent' && isObject(answer.body) && typeof answer.body.name === 'string')
      return { ...outcome, providerMessageId: answer.body.name };
    return outcome;
  }
}

/** Asks the token endpoint for a new access token: proves the service account's key; sends nothing. */
async function check(vendor: VendorConfig, signal: AbortSignal): Promise<DeliveryOutcome> {
  const config = vendor.config;
  const { client_email: clientEmail, private_key: privateKey } = config;
  if (!nonEmptyString(config.project_id) || !nonEmptyString(clientEmail) || !nonEmptyString(privateKey))
    return refused('vendor config needs project_id, client_email and private_key (from the service account JSON)');
  const account = {
    client_email: clientEmail,
    private_key: privateKey,
    token_uri: nonEmptyString(config.token_uri) ? config.token_uri : GOOGLE_TOKEN_URI,
  };
  const auth = await accessToken(account, attemptDeadline(signal, timeoutOf(config)), false);
  return auth.ok ? { kind: 'sent' } : auth.outcome;
}

export const fcmProvider: Provider = withoutSecrets({
  name: 'fcm',
  channels: ['androidpush'],
  configSchema: FcmConfigSchema,
  send,
  check,
});
