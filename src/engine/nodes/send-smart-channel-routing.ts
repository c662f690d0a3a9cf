import { parseDuration } from '../../domain/durations.js';
import { findEventWait, insertEventWait, settleEventWait } from '../../repositories/event-waits.js';
import { findStepMessages } from '../../repositories/messages.js';
import { deliver, deliveredStep, multiChannels } from './delivery.js';
import type { NodeConfig } from '../../schemas/workflow-nodes.js';
import type { NodeResult, RecordedMessage, RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `send_smart_channel_routing`: its template on one channel after another (`channels`, else
 * `channels_expr`, in list order) until the routing succeeds; the `mandatory_channels` are sent at
 * once, whatever happens. After each channel actually sent the run waits `ttl_value / (n − 1)` (n: the
 * channels routed) as a scheduled job and comes back to the node; a channel the decision refuses (no
 * identity, preferences, no vendor …) is recorded as refused and the next one is tried at once.
 * Channels never tried leave no message. A step that runs again records nothing twice: messages are
 * unique per (run, step, channel), and what was sent is read back from them.
 *
 * Success is a routed channel's message reaching `success`, or with `success_is_event` the recipient
 * tracking the event named by `success` after the routing began. That event is waited for as
 * branch_waituntil waits (a `workflow_event_waits` row, src/engine/event-waits.ts): only events stored
 * after the node was entered are appended to it, and one wakes the run at once.
 */

/** The statuses that count as `success` (docs/spec/engine.md §3). */
const SUCCESS: Record<string, readonly string[]> = {
  delivered: ['delivered', 'seen', 'read', 'clicked', 'dismissed'],
  seen: ['seen', 'read', 'clicked'],
  interacted: ['clicked'],
};

/** The success event's wait: whether the event came, and how to end the wait when the routing ends. */
async function successEvent(context: RunContext, eventName: string, ttlMs: number) {
  const { trx, run, nodeRef, now } = context;
  const wait = await findEventWait(trx, run.id, nodeRef);
  if (!wait && run.distinct_id !== null)
    await insertEventWait(trx, {
      runId: run.id,
      nodeRef,
      workspaceId: run.workspace_id,
      distinctId: run.distinct_id,
      eventName,
      timeoutAt: new Date(now + ttlMs),
    });
  const arrived = wait !== undefined && (wait.status === 'matched' || (wait.events as unknown[]).length > 0);
  return {
    arrived,
    // Settled, a wait no longer collects events: a later one cannot wake the run at another node.
    end: async (outcome: 'matched' | 'timed_out') => {
      if (run.distinct_id !== null) await settleEventWait(trx, run.id, nodeRef, outcome);
    },
  };
}

/** Cheapest first (ours: `routing_basis: cost_low_to_high` without a cost table of Herald's own). */
const CHANNELS_BY_COST = [
  'inbox',
  'androidpush',
  'iospush',
  'webpush',
  'slack',
  'ms_teams',
  'email',
  'whatsapp',
  'sms',
];

/** The listed channels in list order; without a list, the recipient's channels, cheapest first. */
function routedChannels(context: RunContext, config: NodeConfig<'send_smart_channel_routing'>) {
  const channels = multiChannels(context, config);
  const listed = config.channels !== undefined || config.channels_expr !== undefined;
  return listed ? channels : [...channels].sort((a, b) => CHANNELS_BY_COST.indexOf(a) - CHANNELS_BY_COST.indexOf(b));
}

export const sendSmartChannelRouting: NodeHandlerOf<'send_smart_channel_routing'> = async (context, config) => {
  const { run, now } = context;
  const mandatory: readonly string[] = config.mandatory_channels ?? [];
  const routed = routedChannels(context, config).filter((channel) => !mandatory.includes(channel));
  const ttl = parseDuration(config.ttl_value) ?? 0;
  const spacing = routed.length > 1 ? ttl / (routed.length - 1) : 0;

  const recorded = await findStepMessages(context.trx, run.id, context.nodeRef);
  const eventName = config.success_is_event === true ? String(config.success) : undefined;
  const event = eventName === undefined ? undefined : await successEvent(context, eventName, ttl);
  // The messages this step recorded, for the run's trace (docs/runs.md).
  const sent: RecordedMessage[] = [];
  const step = (extra: Record<string, unknown>) => {
    const note = deliveredStep(sent);
    return { ...note, detail: { ...note.detail, ...extra } };
  };
  const done = async (outcome: 'matched' | 'timed_out'): Promise<NodeResult> => {
    await event?.end(outcome);
    return { kind: 'next', step: step({ routing: outcome === 'matched' ? 'succeeded' : 'ended' }) };
  };
  if (event?.arrived) return done('matched');
  if (!event) {
    const success = SUCCESS[String(config.success ?? 'delivered')] ?? SUCCESS.delivered!;
    // Mandatory channels go out whatever happens; only the routed ones decide (a mandatory inbox,
    // delivered at once, would otherwise end every routing with success `delivered`).
    if (recorded.some((m) => routed.includes(m.channel) && success.includes(m.status))) return done('matched');
  }
  if (mandatory.length > 0) sent.push(...(await deliver(context, mandatory, config.template)));
  const tried = new Set(recorded.map((m) => m.channel));
  const pending = routed.filter((channel) => !tried.has(channel));
  for (const [index, channel] of pending.entries()) {
    const [message] = await deliver(context, [channel], config.template);
    if (message) sent.push(message);
    // Sent: on its way to a provider, or an inbox message already stored by the step.
    if ((message?.status !== 'to_be_triggered' && message?.status !== 'delivered') || spacing <= 0) continue;
    // The last channel is not waited for: nothing comes after it.
    if (index < pending.length - 1)
      return {
        kind: 'wait',
        until: new Date(now + spacing),
        again: true,
        step: step({ until: new Date(now + spacing).toISOString() }),
      };
    return done('timed_out');
  }
  return done('timed_out');
};
