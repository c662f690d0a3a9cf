import { parseDuration } from '../../domain/durations.js';
import { ALL_CHANNELS, field } from '../../domain/workflow-tree.js';
import { findStepMessages } from '../../repositories/messages.js';
import { deliver, multiChannels } from './delivery.js';
import type { NodeHandler } from './types.js';

/**
 * `send_smart_channel_routing`: its template on one channel after another (`channels`, else
 * `channels_expr`, in list order) until a routed channel's message reaches `success`; the
 * `mandatory_channels` are sent at once, whatever happens. After each channel actually sent the run
 * waits `ttl_value / (n − 1)` (n: the channels routed) as a scheduled job and comes back to the node;
 * a channel the decision refuses (no identity, preferences, no vendor …) is recorded as refused and
 * the next one is tried at once. Channels never tried leave no message. A step that runs again records
 * nothing twice: messages are unique per (run, step, channel), and what was sent is read back from them.
 */

/** The statuses that count as `success` (docs/spec/engine.md §3). */
const SUCCESS: Record<string, readonly string[]> = {
  delivered: ['delivered', 'seen', 'read', 'clicked', 'dismissed'],
  seen: ['seen', 'read', 'clicked'],
  interacted: ['clicked'],
};

export const sendSmartChannelRouting: NodeHandler = async (context) => {
  const { node, run, now } = context;
  const success = SUCCESS[String(field(node, 'success') ?? 'delivered')] ?? SUCCESS.delivered!;
  const listed = field(node, 'mandatory_channels');
  const mandatory = Array.isArray(listed) ? listed.filter((c): c is string => ALL_CHANNELS.includes(c as string)) : [];
  const routed = multiChannels(context).filter((channel) => !mandatory.includes(channel));
  const spacing = routed.length > 1 ? (parseDuration(field(node, 'ttl_value')) ?? 0) / (routed.length - 1) : 0;

  const recorded = await findStepMessages(context.trx, run.id, context.nodeRef);
  // Mandatory channels go out whatever happens; only the routed ones decide (a mandatory inbox,
  // delivered at once, would otherwise end every routing with success `delivered`).
  if (recorded.some((m) => routed.includes(m.channel) && success.includes(m.status))) return { kind: 'next' };
  if (mandatory.length > 0) await deliver(context, mandatory);
  const tried = new Set(recorded.map((m) => m.channel));
  const pending = routed.filter((channel) => !tried.has(channel));
  for (const [index, channel] of pending.entries()) {
    const [message] = await deliver(context, [channel]);
    if (message?.status !== 'to_be_triggered' || spacing <= 0) continue;
    // The last channel is not waited for: nothing comes after it.
    return index < pending.length - 1
      ? { kind: 'wait', until: new Date(now + spacing), again: true }
      : { kind: 'next' };
  }
  return { kind: 'next' };
};
