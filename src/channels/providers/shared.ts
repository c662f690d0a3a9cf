import { Type } from '@sinclair/typebox';
import { deadline } from '../deadline.js';
import { DestinationRefused, fetchGuarded, type OutboundPolicy } from '../outbound.js';
import {
  outcomeFromHttpStatus,
  outcomeFromNetworkError,
  type DeliveryOutcome,
  type DeliveryRequest,
  type Provider,
  type VendorConfig,
} from '../provider.js';
import { isObject } from '../../domain/values.js';

// A provider's library loads at its first send or check, once, not at the start: nothing before a delivery needs it
// (BENCHMARKS.md, "Start time"). The types stay static.
let jose: Promise<typeof import('jose')> | undefined;
/** jose, for the providers that sign their own tokens (APNs, FCM). */
export const loadJose = () => (jose ??= import('jose'));

/** What every provider here shares: the attempt deadline, one HTTP exchange, and keeping secrets out of outcomes. */

export const DEFAULT_TIMEOUT_MS = 10_000;

/** `timeout_ms` in every vendor config: how long one attempt may take before it counts as a timeout (retried). */
export const TimeoutMsSchema = Type.Optional(
  Type.Integer({
    minimum: 100,
    maximum: 60_000,
    default: DEFAULT_TIMEOUT_MS,
    description: 'milliseconds one attempt may take (100 to 60000, default 10000); a timeout is retried',
  }),
);

export const httpUrl = (description: string) =>
  Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s]+$', description });

/**
 * An API's address, shown on reads as it is: no credentials in it (`user:password@` is refused; they belong in the
 * provider's secret fields, sealed at rest).
 */
export const apiUrl = (description: string) =>
  Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://[^\\s/?#@]+([/?#][^\\s]*)?$', description });

/** `base_url` of a provider that calls a fixed API: tests (and self-hosted compatible APIs) point it elsewhere. */
export const baseUrl = (defaultUrl: string) =>
  Type.Optional(apiUrl(`the API's origin, default ${defaultUrl} (tests point it at a local server); no credentials`));

/** Vendor config keys whose values are secrets: a reason or a provider answer never carries one. */
const SECRET_KEYS = new Set(['password', 'auth_token', 'private_key', 'secret', 'api_key', 'access_token', 'key']);

export function timeoutOf(config: Record<string, unknown>): number {
  const value = config.timeout_ms;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : DEFAULT_TIMEOUT_MS;
}

/** `base_url` without a trailing slash, or the default. */
export function baseUrlOf(config: Record<string, unknown>, fallback: string): string {
  const value = typeof config.base_url === 'string' && config.base_url.trim() ? config.base_url.trim() : fallback;
  return value.replace(/\/+$/, '');
}

/**
 * The channel identity as the engine hands it: the entry's `value` (an email, a token, a subscription), or the whole
 * channel entry `{value, status, …}` when it passes that instead.
 */
export function channelValue(identity: unknown): unknown {
  if (isObject(identity) && 'value' in identity && ('status' in identity || 'perma_status' in identity))
    return identity.value;
  return identity;
}

export { isObject };

export const nonEmptyString = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * One attempt's abort signal: the engine's (shutdown, its own deadline) or this provider's timeout, whichever first.
 * `outcomeOf` tells a timeout from the engine's abort, so the reason says which. Made under the engine's call
 * deadline (engine/deliver.ts), its timer ends with the call (channels/deadline.ts).
 */
export function attemptDeadline(signal: AbortSignal, timeoutMs: number) {
  const timeout = deadline(signal, timeoutMs);
  return {
    signal: timeout.signal,
    /** The outcome of a thrown error, naming a timeout or an abort when that is what happened. */
    outcomeOf(error: unknown): DeliveryOutcome {
      if (signal.aborted) return { kind: 'retry', reason: 'aborted before the provider answered' };
      if (timeout.timedOut) return { kind: 'retry', reason: `timed out after ${timeoutMs} ms` };
      return outcomeFromNetworkError(error);
    },
  };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** The answer's body: parsed JSON when it is JSON, text otherwise (cut to 2000 characters), null when empty. */
  body: unknown;
}

const BODY_KEPT = 2000;

/**
 * One HTTP exchange within the attempt's deadline: the answer, or the outcome of the network failure. With an
 * `outbound` policy the destination is one a recipient chose, and the request goes out only where the policy allows
 * (channels/outbound.ts); a refusal is permanent.
 */
export async function exchange(
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: string | Uint8Array },
  deadline: ReturnType<typeof attemptDeadline>,
  outbound?: OutboundPolicy,
): Promise<{ ok: true; answer: HttpAnswer } | { ok: false; outcome: DeliveryOutcome }> {
  try {
    const request = { method: init.method ?? 'POST', headers: init.headers, body: init.body, signal: deadline.signal };
    const response = outbound
      ? await fetchGuarded(url, request, outbound)
      : await fetch(url, { ...request, redirect: 'manual' });
    const text = await readCapped(response);
    return { ok: true, answer: { status: response.status, headers: response.headers, body: parseBody(text) } };
  } catch (error) {
    return {
      ok: false,
      outcome: error instanceof DestinationRefused ? refused(error.message) : deadline.outcomeOf(error),
    };
  }
}

/** An answer's body, read no further than 64 KiB: a provider's answer is short, and a hostile endpoint's is not kept. */
async function readCapped(response: Response, max = 64 * 1024): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  if (size >= max) await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text.length > BODY_KEPT ? `${text.slice(0, BODY_KEPT)}…` : text;
  }
}

/** The outcome of an answer by its status (provider.ts), the reason completed with the provider's own words. */
export function outcomeOfAnswer(answer: HttpAnswer, detail?: string): DeliveryOutcome {
  const outcome = outcomeFromHttpStatus(answer.status, answer.headers.get('retry-after'), answer.body);
  if (outcome.kind === 'sent' || !detail) return outcome;
  return { ...outcome, reason: `${outcome.reason} (${detail})` };
}

/** A refusal that says the recipient's address (a push token, a subscription) is dead: marked so. */
export const deadAddress = (outcome: DeliveryOutcome): DeliveryOutcome =>
  outcome.kind === 'failed' ? { ...outcome, deadAddress: true } : outcome;

/** A misconfiguration found while sending: permanent until someone fixes the vendor or the recipient. */
export const refused = (reason: string): DeliveryOutcome => ({ kind: 'failed', reason });

/**
 * Wraps a provider so no outcome carries a secret of its vendor config, whatever a library or a provider echoed back:
 * each secret value (and each line of a multi-line one, such as a PEM key) is replaced by "********".
 */
export function withoutSecrets(provider: Provider, extraSecretKeys: readonly string[] = []): Provider {
  // A provider reports failures as outcomes; a throw is a fault of ours that another attempt would repeat.
  const guarded = async (
    vendor: VendorConfig,
    request: DeliveryRequest | undefined,
    attempt: () => Promise<DeliveryOutcome>,
  ) => {
    let outcome: DeliveryOutcome;
    try {
      outcome = await attempt();
    } catch (error) {
      outcome = { kind: 'failed', reason: `${provider.name} provider error: ${describe(error)}` };
    }
    return scrubSecrets(outcome, secretsOf(vendor.config, extraSecretKeys, request));
  };
  const { check, close, warm } = provider;
  return {
    ...(close ? { close: () => close() } : {}),
    name: provider.name,
    channels: provider.channels,
    configSchema: provider.configSchema,
    ...(provider.statusCallbacks ? { statusCallbacks: true as const } : {}),
    ...(warm ? { warm } : {}),
    send: (vendor, request, signal, context) =>
      guarded(vendor, request, () => provider.send(vendor, request, signal, context)),
    ...(check
      ? {
          check: (vendor: VendorConfig, signal: AbortSignal) => guarded(vendor, undefined, () => check(vendor, signal)),
        }
      : {}),
  };
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * The pieces of a vendor config's secrets, per opened config: a delivery batch opens its vendors' configs once
 * (engine/deliver.ts), so its calls share them instead of splitting every secret again per call.
 */
const configSecrets = new WeakMap<Record<string, unknown>, string[]>();

function secretsOf(
  config: Record<string, unknown>,
  extraKeys: readonly string[],
  request: DeliveryRequest | undefined,
): string[] {
  let ofConfig = configSecrets.get(config);
  if (!ofConfig) {
    const values: string[] = [];
    for (const [key, value] of Object.entries(config))
      if ((SECRET_KEYS.has(key) || extraKeys.includes(key)) && typeof value === 'string') values.push(value);
    configSecrets.set(config, (ofConfig = secretPieces(values)));
  }
  // An incoming webhook's URL on the recipient's entry is a credential too.
  const identity = request && channelValue(request.channelIdentity);
  if (extraKeys.includes('url') && isObject(identity) && isObject(identity.incoming_webhook)) {
    const url = identity.incoming_webhook.url;
    if (typeof url === 'string') return secretPieces([url], ofConfig);
  }
  return ofConfig;
}

/** Each secret, as it appears inside a JSON string, and its lines; with `more`'s, longest first. */
function secretPieces(values: string[], more: string[] = []): string[] {
  const pieces = values.flatMap((value) => [
    value,
    // As it appears inside a JSON string (a PEM key's newlines escaped).
    JSON.stringify(value).slice(1, -1),
    ...value
      .split(/\r?\n|\\n/)
      .map((line) => line.trim())
      .filter((line) => line.length >= 16 && !line.startsWith('-----')),
  ]);
  // Longest first, so a whole value is replaced before any of its lines. A value under 6 characters is no real
  // secret, and replacing it everywhere would garble the reason.
  return [...new Set([...more, ...pieces.filter((piece) => piece.length >= 6)])].sort((a, b) => b.length - a.length);
}

export function scrubSecrets(outcome: DeliveryOutcome, secrets: string[]): DeliveryOutcome {
  if (secrets.length === 0) return outcome;
  const scrub = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('********'), text);
  const scrubbed: DeliveryOutcome = { ...outcome };
  if ('reason' in scrubbed) scrubbed.reason = scrub(scrubbed.reason);
  if (scrubbed.providerResponse !== undefined) {
    const text = JSON.stringify(scrubbed.providerResponse);
    if (text !== undefined && secrets.some((secret) => text.includes(secret))) {
      const clean = scrub(text);
      try {
        scrubbed.providerResponse = JSON.parse(clean) as unknown;
      } catch {
        scrubbed.providerResponse = clean;
      }
    }
  }
  return scrubbed;
}
