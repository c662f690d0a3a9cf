import type { TObject } from '@sinclair/typebox';
import { DELIVERY_CHANNELS, type DeliveryChannel } from '../schemas/delivery-channels.js';
import type { OutboundPolicy } from './outbound.js';

/**
 * The seam between the engine and the providers that deliver (docs/spec/engine.md §4, §7).
 *
 * The engine decides who gets what and records it; a provider only turns one rendered message into
 * one attempt at delivery and says how it went. Retrying is the engine's job: a provider never loops.
 */

// The channel names are part of the wire contract (template schemas list them), so schemas/ holds them.
export { DELIVERY_CHANNELS, type DeliveryChannel };

export type MessageRecipient = { distinct_id: string } | { object_type: string; id: string };

/** One message for one recipient on one channel, already rendered. */
export interface DeliveryRequest {
  messageId: string;
  executionId: string;
  channel: DeliveryChannel;
  recipient: MessageRecipient;
  /** The address used: an email, a phone number, a push token or subscription, a Slack target. */
  channelIdentity: unknown;
  tenantId: string;
  workflow: { slug: string; version_id: string; node_ref: string };
  /** The rendered template variant (shapes per channel in docs/spec/engine.md §6). */
  content: Record<string, unknown>;
}

export type DeliveryOutcome =
  /** The provider accepted the message. */
  | { kind: 'sent'; providerResponse?: unknown; providerMessageId?: string }
  /** A transient failure (5xx, 429, timeout, connection error): the engine may try again. */
  | { kind: 'retry'; reason: string; retryAfterMs?: number; providerResponse?: unknown }
  /**
   * A permanent refusal (another 4xx, a bad address, a misconfiguration): never retried. `deadAddress`: the
   * platform said the address itself is gone for good (FCM UNREGISTERED, APNs 410, web push 404/410), so the
   * engine marks the recipient's entry inactive and never uses it again (docs/channels.md, "Provider feedback").
   */
  | { kind: 'failed'; reason: string; providerResponse?: unknown; deadAddress?: true };

/** A vendor as configured in a workspace, secrets decrypted (never logged, never returned). */
export interface VendorConfig {
  id: string;
  provider: string;
  nickname: string | null;
  config: Record<string, unknown>;
}

/** What the process hands every send: where a recipient-chosen destination may be (channels/outbound.ts). */
export interface SendContext {
  outbound: OutboundPolicy;
  /**
   * Where the vendor may report this message's delivery (a provider with `statusCallbacks`), when Herald knows its
   * public URL (PUBLIC_URL); absent, no callback is asked for (docs/channels.md, "Twilio status callbacks").
   */
  statusCallbackUrl?: string;
  /**
   * How many sends this process may have in flight at once (the worker's delivery slots). A provider that keeps a
   * pool of connections per vendor (SMTP) sizes it to this, so no send waits in the pool for a connection while its
   * deadline runs. Absent (a single test send), the pool keeps the size it has, or a small default.
   */
  parallelSends?: number;
}

/** The path a vendor's status callbacks reach (src/base/provider-callbacks.ts): the workspace and vendor, no secret. */
export const statusCallbackPath = (provider: string, workspaceSlug: string, vendorId: string) =>
  `/provider_callback/${provider}/${encodeURIComponent(workspaceSlug)}/${encodeURIComponent(vendorId)}/`;

export interface Provider {
  /** The `provider` value of a vendor record: `smtp`, `twilio`, `vapid`, `fcm`, `apns`, `incoming_webhook`, `webhook`. */
  readonly name: string;
  readonly channels: readonly DeliveryChannel[];
  /**
   * The vendor `config` this provider takes, validated when a vendor is created or changed. Its secret keys
   * (`password`, `auth_token`, `private_key`, `secret`, `api_key`, `access_token`, `key`) are encrypted at rest and
   * masked on every read by the vendor store, not by the provider.
   */
  readonly configSchema: TObject;
  /** Without a context, recipient-chosen destinations meet the default policy (DEFAULT_OUTBOUND). */
  send(
    vendor: VendorConfig,
    request: DeliveryRequest,
    signal: AbortSignal,
    context?: SendContext,
  ): Promise<DeliveryOutcome>;
  /**
   * The vendor `test` action without a recipient (docs/channels.md, "Testing a vendor"): checks the connection and
   * the credentials without delivering anything; `sent` means the check passed. A provider without one is tested
   * by sending a test message to the destination its config names.
   */
  check?(vendor: VendorConfig, signal: AbortSignal): Promise<DeliveryOutcome>;
  /** Asks the vendor for status callbacks when the send context has a `statusCallbackUrl` (Twilio). */
  readonly statusCallbacks?: true;
  /** Closes what the provider keeps between sends (connections), at shutdown. */
  close?(): Promise<void>;
  /**
   * Loads what its calls need, started (not awaited) when the worker starts, so that it is ready by the first send;
   * a send that comes sooner waits for the same load before its deadline starts (undici: about a second on a busy
   * machine), and the worker's start does not wait for it.
   */
  warm?(): Promise<void>;
}

const RETRY_AFTER_CAP_MS = 5 * 60_000;

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `now`, capped at five minutes. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(0, ms), RETRY_AFTER_CAP_MS);
}

/** The outcome of an HTTP answer: 2xx sent, 429 and 5xx (and 408) retried, any other status refused. */
export function outcomeFromHttpStatus(
  status: number,
  retryAfter: string | null | undefined,
  providerResponse: unknown,
): DeliveryOutcome {
  if (status >= 200 && status < 300) return { kind: 'sent', providerResponse };
  const reason = `provider answered ${status}`;
  if (status === 429 || status === 408 || status >= 500) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    return retryAfterMs === undefined
      ? { kind: 'retry', reason, providerResponse }
      : { kind: 'retry', reason, retryAfterMs, providerResponse };
  }
  return { kind: 'failed', reason, providerResponse };
}

/**
 * A thrown network error (timeout, reset, refused, DNS) is transient. fetch wraps the socket's error as the `cause`
 * of a bare "fetch failed", so the cause is what gets described.
 */
export function outcomeFromNetworkError(error: unknown): DeliveryOutcome {
  if (error instanceof TypeError && error.message === 'fetch failed' && error.cause instanceof Error)
    return outcomeFromNetworkError(error.cause);
  const message = error instanceof Error ? error.message : String(error);
  const code =
    (error as { code?: unknown; cause?: { code?: unknown } } | null)?.code ??
    (error as { cause?: { code?: unknown } })?.cause?.code;
  return { kind: 'retry', reason: typeof code === 'string' ? `${code}: ${message}` : message };
}
