import type { Decision } from '../domain/preference-evaluation.js';

/**
 * The delivery decision (docs/spec/engine.md §4), in one place: per recipient, channel and delivery
 * step, the first rule that refuses wins and is recorded on the message as its `reason`.
 */

export interface DecisionInput {
  channel: string;
  /** The address the channel would use; undefined when the recipient has no active entry. */
  identity: unknown;
  blockedChannels: readonly string[];
  /** The preference rules' answer; undefined when the workflow's category is no longer defined. */
  preference: Decision | undefined;
  /** The inbox needs no provider: Herald stores and serves it. */
  hasProvider: boolean;
  /** The workflow's ratelimit refused the run (src/engine/ratelimit.ts). */
  rateLimited?: boolean;
}

export type DeliveryDecision =
  | { send: true; identity: unknown; preference: Decision | undefined }
  | { send: false; reason: string; message: string };

export function decideDelivery(input: DecisionInput): DeliveryDecision {
  if (input.rateLimited)
    return { send: false, reason: 'rate_limited', message: "the workflow's ratelimit for this recipient was reached" };
  if (input.identity === undefined)
    return { send: false, reason: 'no_channel', message: `the recipient has no active ${input.channel} channel` };
  if (input.blockedChannels.includes(input.channel))
    return { send: false, reason: 'tenant_blocked', message: `the tenant blocks ${input.channel}` };
  if (input.preference === undefined)
    return {
      send: false,
      reason: 'unknown_category',
      message: "the workflow's category is not in the live preference categories",
    };
  if (!input.preference.allowed)
    return { send: false, reason: input.preference.reason, message: input.preference.message };
  if (input.channel !== 'inbox' && !input.hasProvider)
    return { send: false, reason: 'no_provider', message: `the workspace has no active vendor for ${input.channel}` };
  return { send: true, identity: input.identity, preference: input.preference };
}

interface ChannelEntryLike {
  value?: unknown;
  status?: unknown;
  perma_status?: unknown;
}

/**
 * The address a recipient is reached at on a channel: the first active entry of `$<channel>`. The
 * inbox is always there for a user: its identity is the distinct_id (ours).
 */
export function channelIdentity(
  channel: string,
  channels: Record<string, unknown[]>,
  recipient: { distinct_id: string | null },
): unknown {
  const entries = (channels[`$${channel}`] ?? []) as ChannelEntryLike[];
  const active = entries.find(
    (entry) => entry && entry.status !== 'inactive' && entry.perma_status !== 'disabled' && entry.value !== undefined,
  );
  if (active) return active.value;
  if (channel === 'inbox' && recipient.distinct_id !== null) return recipient.distinct_id;
  return undefined;
}
