import { DELIVERY_CHANNELS } from '../../schemas/delivery-channels.js';
import { newUlid } from '../../ids.js';
import { readExpression } from '../../domain/paths.js';
import type { NewMessage } from '../../repositories/messages.js';
import { decidePreference } from '../../domain/preference-evaluation.js';
import { channelIdentity, decideDelivery } from '../decision.js';
import type { StepNote } from '../../domain/run-steps.js';
import type { FixedDeliveryNodeType } from '../../schemas/workflow-nodes.js';
import type { RecordedMessage, RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';

/**
 * Every delivery node: one message per channel, decided (§4) and recorded with the step; a message
 * the decision let through is rendered by the step (src/engine/run-scope.ts), then stored at once
 * (inbox) or recorded with its content and given a delivery job, which sends it outside the run's
 * transaction. Returns the messages recorded by this step, with their status.
 */
export async function deliver(context: RunContext, channels: readonly string[], template: string) {
  const { run, recipient } = context;
  const facts = await context.deliveryFacts();
  const messages: NewMessage[] = channels.map((channel) => {
    const identity = channelIdentity(channel, recipient.channels, recipient);
    const decision = decideDelivery({
      channel,
      identity,
      blockedChannels: facts.blockedChannels,
      preference: decidePreference(facts.roots, facts.preferences, run.category, channel),
      hasProvider: facts.vendors.has(channel),
      rateLimited: run.rate_limited,
    });
    const vendor = facts.vendors.get(channel);
    return {
      id: newUlid(),
      run_id: run.id,
      // An invoked workflow's messages name the invoking run as their parent (docs/spec/engine.md §3).
      execution_id: run.parent_run_id ?? run.execution_id,
      node_ref: context.nodeRef,
      workflow_slug: run.workflow_slug,
      version_no: run.version_no,
      recipient_type: recipient.type,
      distinct_id: recipient.distinct_id,
      object_type: recipient.object_type,
      object_id: recipient.object_id,
      channel,
      channel_identity: identity ?? null,
      tenant_id: run.tenant_id,
      category: run.category,
      idempotency_key: run.idempotency_key,
      status: decision.send ? 'to_be_triggered' : 'not_to_be_triggered',
      reason: decision.send ? null : decision.reason,
      vendor: decision.send && vendor ? { name: vendor.provider, nickname: vendor.nickname } : null,
      template_slug: template,
    };
  });
  return context.writeMessages(messages);
}

/** The trace of a delivery step: its messages, each with its channel and the status it was recorded with. */
export const deliveredStep = (messages: RecordedMessage[]): StepNote => ({
  outcome: 'delivered_messages',
  detail: {
    message_ids: messages.map((m) => m.id),
    messages: messages.map((m) => ({ id: m.id, channel: m.channel, status: m.status })),
  },
});

/** A delivery node of a fixed channel set (`send_email`, `send_mobile_push` …): its template on each channel. */
export const deliveryNode =
  (channels: readonly string[]): NodeHandlerOf<FixedDeliveryNodeType> =>
  async (context, config) => ({ kind: 'next', step: deliveredStep(await deliver(context, channels, config.template)) });

/** `send_multi_channel`: its template on each of its channels (multiChannels). */
export const sendMultiChannel: NodeHandlerOf<'send_multi_channel'> = async (context, config) => ({
  kind: 'next',
  step: deliveredStep(await deliver(context, multiChannels(context, config), config.template)),
});

const CHANNELS: readonly string[] = DELIVERY_CHANNELS;

/**
 * The channels of a multi-channel node: its `channels`, else its `channels_expr` read from the data,
 * else (ours) every channel the recipient has an entry for, inbox excepted (it is always there).
 */
export function multiChannels(
  context: RunContext,
  config: { channels?: readonly string[] | null; channels_expr?: unknown },
): string[] {
  if (config.channels) return [...config.channels];
  const expr = config.channels_expr;
  if (typeof expr === 'string') {
    const value = readExpression(context.namespaces, expr);
    return Array.isArray(value) ? value.filter((c): c is string => CHANNELS.includes(c as string)) : [];
  }
  return CHANNELS.filter((c) => c !== 'inbox' && (context.recipient.channels[`$${c}`]?.length ?? 0) > 0);
}
