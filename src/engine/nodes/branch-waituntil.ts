import { evaluateExpression } from '../../domain/expressions.js';
import { enterBranch, nextPosition } from '../../domain/workflow-tree.js';
import { findEventWait, insertEventWait, settleEventWait } from '../../repositories/event-waits.js';
import { mergeRunData } from '../../repositories/runs.js';
import { momentFrom } from '../timing.js';
import { branchTaken } from './branch.js';
import type { RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `branch_waituntil`: two branches, one waiting for a named event of the same recipient
 * (`future_event`, with optional `event_conditions`), the default one taken at the timeout
 * (`delay` with `delay_properties`). The timeout starts when the run enters the node; only events
 * tracked after that count. The run waits as a scheduled job until the timeout; an event wakes it
 * sooner (src/engine/event-waits.ts). The matching event's properties are `$future_event` in the
 * run's data for the steps of its branch.
 */

type Branch = { is_default?: boolean; conditions?: Record<string, unknown>[] };

function branchesOf(config: { branches: unknown[] }) {
  // waitUntilErrors (src/domain/flow-node-rules.ts) let through only two branch objects, one with a
  // future_event condition and the other with a delay one; their conditions are lists.
  const branches = config.branches as Branch[];
  const eventIndex = branches.findIndex((b) => (b.conditions ?? []).some((c) => c?.type === 'future_event'));
  const timeoutIndex = branches.findIndex(
    (b, i) => i !== eventIndex && (b.is_default === true || (b.conditions ?? []).some((c) => c?.type === 'delay')),
  );
  const event =
    eventIndex >= 0 ? branches[eventIndex]!.conditions!.find((c) => c?.type === 'future_event')! : undefined;
  const timeout =
    timeoutIndex >= 0 ? (branches[timeoutIndex]!.conditions ?? []).find((c) => c?.type === 'delay') : undefined;
  return { eventIndex, timeoutIndex, event, timeout };
}

function eventMatches(context: RunContext, conditions: unknown, properties: Record<string, unknown>) {
  if (!Array.isArray(conditions) || conditions.length === 0) return true;
  return conditions.every((condition) => {
    const c = condition as Record<string, unknown>;
    return c.variable_ns === '$future_event'
      ? evaluateExpression({ ...c, variable_ns: '' }, { ...context.namespaces, data: properties })
      : evaluateExpression(c, context.namespaces);
  });
}

const enter = (context: RunContext, branches: unknown[], index: number, taken: 'event' | 'timeout') =>
  ({
    kind: 'jump',
    position:
      index >= 0 ? enterBranch(context.tree, context.position, index) : nextPosition(context.tree, context.position),
    step: {
      outcome: 'branch_taken',
      detail: {
        ...(index >= 0 ? branchTaken(branches, index) : { branch: null }),
        by: taken,
      },
    },
  }) as const;

export const branchWaituntil: NodeHandlerOf<'branch_waituntil'> = async (context, config) => {
  const { trx, run, now, namespaces } = context;
  const { eventIndex, timeoutIndex, event, timeout } = branchesOf(config);
  const wait = await findEventWait(trx, run.id, context.nodeRef);
  if (wait) {
    if (wait.status === 'waiting' && event) {
      const matched = (wait.events as Record<string, unknown>[]).find((e) =>
        eventMatches(context, event.event_conditions, e ?? {}),
      );
      if (matched) {
        await settleEventWait(trx, run.id, context.nodeRef, 'matched');
        await mergeRunData(trx, run.id, { $future_event: matched });
        context.namespaces.data = { ...namespaces.data, $future_event: matched };
        return enter(context, config.branches, eventIndex, 'event');
      }
    }
    if (wait.status === 'waiting' && wait.timeout_at.getTime() > now + 1000)
      return { kind: 'wait', until: wait.timeout_at, again: true };
    await settleEventWait(trx, run.id, context.nodeRef, 'timed_out');
    return enter(context, config.branches, timeoutIndex, 'timeout');
  }

  const props = ((timeout?.delay_properties ?? {}) as Record<string, unknown>) ?? {};
  const timeoutAt =
    momentFrom(namespaces, now, props.delay_type ?? 'fixed', props.value, props.value, props.relative_to) ?? now;
  if (!event || typeof event.event_name !== 'string' || run.distinct_id === null)
    return enter(context, config.branches, timeoutIndex, 'timeout');
  await insertEventWait(trx, {
    runId: run.id,
    nodeRef: context.nodeRef,
    workspaceId: run.workspace_id,
    distinctId: run.distinct_id,
    eventName: event.event_name,
    timeoutAt: new Date(timeoutAt),
  });
  return {
    kind: 'wait',
    until: new Date(timeoutAt),
    again: true,
    step: { outcome: 'waiting_until', detail: { until: new Date(timeoutAt).toISOString(), event: event.event_name } },
  };
};
