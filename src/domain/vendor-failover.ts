import type { DeliveryAttempt } from '../schemas/messages.js';

/**
 * Vendor failover (docs/channels.md, "Failover"; product spec §5): which of a channel's vendors an attempt goes to,
 * and after a failing attempt whether the message retries that vendor, moves to the next one, or fails.
 *
 * The channel's vendors come ordered (repositories/vendors.ts `findChannelVendors`: default first, then priority).
 * A message moves forward only: the next vendor is the first one it has not tried yet, so it never loops and never
 * goes back to a vendor that refused it. Each attempt records its vendor on the message, which is how a retry knows
 * where it is and how long it has been failing there.
 */

export const MAX_ATTEMPTS_PER_VENDOR = 8;
export const RETRY_WINDOW_MS = 60 * 60_000;

export interface FailoverVendor {
  id: string;
  fallbackAfterSeconds: number;
}

/** What a stored attempt tells failover: when it was made, and through which vendor (none before failover existed). */
type StoredAttempt = Pick<DeliveryAttempt, 'at' | 'vendor'>;

const vendorIdOf = (attempt: StoredAttempt | undefined) => attempt?.vendor?.id;

/**
 * The vendor an attempt goes to: the one its job names (a retry, or a failover) while it is still active, else the
 * one the last attempt went to, else the first the message has not tried (a fresh message: the channel's first).
 */
export function vendorForAttempt<V extends FailoverVendor>(
  vendors: readonly V[],
  attempts: readonly StoredAttempt[],
  jobVendorId: string | undefined,
): V | undefined {
  const byId = (id: string | undefined) => (id === undefined ? undefined : vendors.find((v) => v.id === id));
  const tried = new Set(attempts.map(vendorIdOf));
  return byId(jobVendorId) ?? byId(vendorIdOf(attempts[attempts.length - 1])) ?? vendors.find((v) => !tried.has(v.id));
}

export type AfterFailure =
  | { kind: 'retry'; vendorId: string; delayMs: number }
  | { kind: 'next'; vendorId: string }
  | { kind: 'give_up'; reason: 'provider_refused' | 'retries_exhausted' };

/**
 * After a failing attempt through `current`: `attempts` are the message's earlier attempts (not this one), `startedAt`
 * this attempt's start, `delayMs(n)` the wait before the n+1-th attempt on one vendor (the engine's backoff).
 *
 * A vendor keeps a message while its retries stay within its `fallback_after_seconds` of the first attempt it got
 * (and within 8 attempts and the hour every delivery has); a permanent refusal, or a retry that would fall past
 * that, moves the message at once to the next vendor it has not tried. With none left, the usual rules end it:
 * a refusal fails it, and retries go on on the last vendor until its attempts or the hour (counted from the
 * message's creation, or from the last vendor's first attempt once the message has moved) run out.
 */
export function afterFailure(input: {
  /** The failing attempt: transient (retry) or a permanent refusal (failed). */
  outcome: { kind: 'retry' | 'failed'; deadAddress?: true };
  vendors: readonly FailoverVendor[];
  current: FailoverVendor;
  attempts: readonly StoredAttempt[];
  startedAt: number;
  createdAt: number;
  now: number;
  delayMs: (attemptOnVendor: number) => number;
}): AfterFailure {
  const { outcome, vendors, current, attempts, now } = input;
  const legacy = (attempt: StoredAttempt) => vendorIdOf(attempt) === undefined;
  const here = attempts.filter((a) => vendorIdOf(a) === current.id || legacy(a));
  const attemptsHere = here.length + 1;
  const firstHere = Date.parse(here[0]?.at ?? '') || input.startedAt;
  const tried = new Set([...attempts.map(vendorIdOf), current.id]);
  const next = vendors.find((v) => !tried.has(v.id));
  const movedHere = attempts.some((a) => !legacy(a) && vendorIdOf(a) !== current.id);
  const delayMs = outcome.kind === 'retry' ? input.delayMs(attemptsHere) : 0;
  const windowStart = next || movedHere ? firstHere : input.createdAt;
  const windowMs = next ? Math.min(current.fallbackAfterSeconds * 1000, RETRY_WINDOW_MS) : RETRY_WINDOW_MS;
  const doneHere =
    outcome.kind === 'failed' || attemptsHere >= MAX_ATTEMPTS_PER_VENDOR || now - windowStart + delayMs > windowMs;
  if (!doneHere) return { kind: 'retry', vendorId: current.id, delayMs };
  // A dead address (a push token the platform unregistered) is the recipient's, not the vendor's: no other vendor.
  if (next && !('deadAddress' in outcome && outcome.deadAddress)) return { kind: 'next', vendorId: next.id };
  return { kind: 'give_up', reason: outcome.kind === 'failed' ? 'provider_refused' : 'retries_exhausted' };
}
