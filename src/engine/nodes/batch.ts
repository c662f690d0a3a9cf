import { readExpression } from '../../domain/paths.js';
import { newUlid } from '../../ids.js';
import { addBatchItem, findWaitedBatch, joinBatch, setBatchWaiter } from '../../repositories/batches.js';
import { mergeRunData } from '../../repositories/runs.js';
import { carryOn, itemData } from '../gathering.js';
import { momentFrom } from '../timing.js';
import type { RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `batch`: the triggers of one recipient and `batch_key` value gather while the window opened by the
 * first of them is open; then one run carries them on with `$batched_events` (up to `retain_count`,
 * first or last per `retain_order`) and `$batched_events_count`, its root data the latest trigger's.
 * The other runs end here (status `batched`).
 *
 * `accumulate_all`: the first trigger's run waits for the window. `flush_leading_item`: the first
 * trigger's run goes on at once with itself as the batch; the second one waits for the window and
 * carries the rest, and a window with no second trigger sends nothing more.
 */

function batchKeyValue(context: RunContext, expr: string | null | undefined): string {
  if (!expr || expr.trim() === '') return '';
  const value = readExpression(context.namespaces, expr);
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export const batch: NodeHandlerOf<'batch'> = async (context, config) => {
  const { trx, run, namespaces, now } = context;
  const flush = config.mode === 'flush_leading_item';
  const waited = await findWaitedBatch(trx, run.id, context.nodeRef);
  if (waited) {
    // This run is back from its wait: the runner lets a resume job through only when it is due (within
    // its tolerance), and waiting again here would reuse the id of the job being handled.
    if (waited.status !== 'open') return { kind: 'next' };
    return { kind: 'next', step: await carryOn(context, config, waited, flush ? 2 : 1) };
  }

  const closesAt =
    momentFrom(
      namespaces,
      now,
      config.window_type ?? 'fixed',
      config.fixed_window,
      config.dynamic_window_expr,
      config.relative_to,
    ) ?? now;
  const joined = await joinBatch(
    trx,
    newUlid(),
    {
      workspaceId: run.workspace_id,
      workflowSlug: run.workflow_slug,
      nodeRef: context.nodeRef,
      recipientKey: run.recipient_key,
      batchKey: batchKeyValue(context, config.batch_key),
    },
    new Date(closesAt),
  );
  const ownData = itemData(namespaces.data);
  await addBatchItem(trx, joined.id, joined.event_count, run.id, ownData);
  // What the run's trace records: the batch, when it flushes, the run that carries it (when known yet).
  const batched = (absorbedInto?: string | null) => ({
    outcome: 'batched' as const,
    detail: {
      batch_id: joined.id,
      flushes_at: joined.closes_at.toISOString(),
      ...(absorbedInto !== undefined ? { absorbed_into: absorbedInto } : {}),
    },
  });

  if (flush && joined.event_count === 1) {
    const data = { $batched_events: [ownData], $batched_events_count: 1 };
    await mergeRunData(trx, run.id, data);
    context.namespaces.data = { ...namespaces.data, ...data };
    return { kind: 'next', step: { outcome: 'batched', detail: { batch_id: joined.id, flushed: 'leading_item' } } };
  }
  const waiterSeq = flush ? 2 : 1;
  if (joined.event_count !== waiterSeq) return { kind: 'stop', status: 'batched', step: batched(joined.waiter_run_id) };
  await setBatchWaiter(trx, joined.id, run.id);
  if (joined.closes_at.getTime() > now) return { kind: 'wait', until: joined.closes_at, again: true, step: batched() };
  return { kind: 'next', step: await carryOn(context, config, joined, waiterSeq) };
};
