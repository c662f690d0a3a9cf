import { Type } from '@sinclair/typebox';
import type webpush from 'web-push';
import { DEFAULT_OUTBOUND } from '../outbound.js';
import type { DeliveryOutcome, DeliveryRequest, Provider, SendContext, VendorConfig } from '../provider.js';
import {
  attemptDeadline,
  channelValue,
  exchange,
  isObject,
  nonEmptyString,
  deadAddress,
  outcomeOfAnswer,
  refused,
  timeoutOf,
  TimeoutMsSchema,
  withoutSecrets,
} from './shared.js';

const FOUR_WEEKS_S = 28 * 24 * 3600;

// Loaded at the first send or check (shared.ts, loadJose). web-push is CommonJS whose exports Node cannot list for
// an import: its functions are on the default export.
let webPush: Promise<typeof webpush> | undefined;
const loadWebPush = () =>
  (webPush ??= import('web-push').then((module) => (module as unknown as { default: typeof webpush }).default));

/**
 * Web push with VAPID (RFC 8292), the payload encrypted for the subscription (RFC 8291). web-push builds the request
 * (encryption and the VAPID Authorization header); the POST itself goes through the shared HTTP exchange, so the
 * deadline and the engine's abort apply to it as to every other provider. The push service's URL is the
 * subscription's `endpoint`, chosen by the browser: there is no `base_url` (tests give subscriptions a local one).
 */
export const VapidConfigSchema = Type.Object(
  {
    public_key: Type.String({
      minLength: 1,
      maxLength: 256,
      description: 'the VAPID public key, URL-safe base64 (npx web-push generate-vapid-keys)',
    }),
    private_key: Type.String({ minLength: 1, maxLength: 256, description: 'the VAPID private key (secret)' }),
    subject: Type.String({
      minLength: 1,
      maxLength: 512,
      pattern: '^(mailto:|https://)\\S+$',
      description: 'a contact for the push services: a mailto: or https: URL',
    }),
    ttl_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: FOUR_WEEKS_S,
        description: 'how long the push service keeps an undelivered message (default 4 weeks)',
      }),
    ),
    urgency: Type.Optional(
      Type.Union([Type.Literal('very-low'), Type.Literal('low'), Type.Literal('normal'), Type.Literal('high')], {
        description: 'the Urgency header (default normal)',
      }),
    ),
    timeout_ms: TimeoutMsSchema,
  },
  { additionalProperties: false },
);

type Subscription = { endpoint: string; keys: { p256dh: string; auth: string } };

function subscriptionOf(identity: unknown): Subscription | undefined {
  const value = channelValue(identity);
  if (!isObject(value) || !nonEmptyString(value.endpoint) || !isObject(value.keys)) return undefined;
  const { p256dh, auth } = value.keys;
  if (!nonEmptyString(p256dh) || !nonEmptyString(auth) || !/^https?:\/\/\S+$/.test(value.endpoint)) return undefined;
  return { endpoint: value.endpoint, keys: { p256dh, auth } };
}

async function send(
  vendor: VendorConfig,
  request: DeliveryRequest,
  signal: AbortSignal,
  context?: SendContext,
): Promise<DeliveryOutcome> {
  const config = vendor.config;
  const { public_key: publicKey, private_key: privateKey, subject } = config;
  if (!nonEmptyString(publicKey) || !nonEmptyString(privateKey) || !nonEmptyString(subject))
    return refused('vendor config needs public_key, private_key and subject');
  const subscription = subscriptionOf(request.channelIdentity);
  if (!subscription)
    return refused("the recipient's $webpush entry is not a push subscription {endpoint, keys: {p256dh, auth}}");
  if (!nonEmptyString(request.content.title) && !nonEmptyString(request.content.body))
    return refused('the rendered content has neither title nor body');

  const push = await loadWebPush();
  let details: webpush.RequestDetails;
  try {
    details = push.generateRequestDetails(subscription, JSON.stringify(request.content), {
      vapidDetails: { subject, publicKey, privateKey },
      TTL: typeof config.ttl_seconds === 'number' ? config.ttl_seconds : FOUR_WEEKS_S,
      ...(nonEmptyString(config.urgency) ? { urgency: config.urgency as webpush.Urgency } : {}),
    });
  } catch (error) {
    // web-push's own words: a key of the wrong length, a subject that is not a URL, a subscription key it cannot use.
    return refused(`web push request not built: ${error instanceof Error ? error.message : String(error)}`);
  }
  const headers = Object.fromEntries(
    Object.entries(details.headers)
      .filter(([name]) => name.toLowerCase() !== 'content-length')
      .map(([name, value]) => [name, String(value)]),
  );
  const result = await exchange(
    details.endpoint,
    { headers, ...(details.body ? { body: new Uint8Array(details.body) } : {}) },
    attemptDeadline(signal, timeoutOf(config)),
    // The endpoint is the browser's choice, registered through the base API or the web SDK.
    context?.outbound ?? DEFAULT_OUTBOUND,
  );
  if (!result.ok) return result.outcome;
  const { answer } = result;
  if (answer.status === 404 || answer.status === 410)
    return deadAddress(outcomeOfAnswer(answer, 'the push subscription has expired or was unsubscribed'));
  const detail = typeof answer.body === 'string' && answer.body.length <= 200 ? answer.body : undefined;
  const outcome = outcomeOfAnswer(answer, detail);
  const location = answer.headers.get('location');
  return outcome.kind === 'sent' && location ? { ...outcome, providerMessageId: location } : outcome;
}

/**
 * A dry check: the push service is the subscription's, so without one nothing can be called. web-push signs the VAPID
 * header for a sample audience, which proves the key pair and the subject usable.
 */
async function check(vendor: VendorConfig): Promise<DeliveryOutcome> {
  const { public_key: publicKey, private_key: privateKey, subject } = vendor.config;
  if (!nonEmptyString(publicKey) || !nonEmptyString(privateKey) || !nonEmptyString(subject))
    return refused('vendor config needs public_key, private_key and subject');
  const push = await loadWebPush();
  try {
    push.getVapidHeaders('https://push.example.com', subject, publicKey, privateKey, 'aes128gcm');
    return { kind: 'sent' };
  } catch (error) {
    return refused(`VAPID keys not usable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export const vapidProvider: Provider = withoutSecrets({
  name: 'vapid',
  channels: ['webpush'],
  configSchema: VapidConfigSchema,
  send,
  check,
});
