import { field } from '../domain/workflow-tree.js';
import { batchItems, closeBatch, latestBatchItem } from '../repositories/batches.js';
import { mergeRunData } from '../repositories/runs.js';
import type { RunContext } from './nodes/types.js';

/**
 * What batch and digest share once their gathering closes: the run that waited carries the events
 * on as `$batched_events` (up to `retain_count`, first or last per `retain_order`) and
 * `$batched_events_count`, with the latest trigger's data as its root data.
 */

const DEFAULT_RETAIN = 10;

export function retention(context: RunContext) {
  const count = Number(field(context.node, 'retain_count') ?? DEFAULT_RETAIN);
  const limit = Number.isInteger(count) && count >= 1 && count <= 100 ? count : DEFAULT_RETAIN;
  return { limit, order: field(context.node, 'retain_order') === 'first' ? ('first' as const) : ('last' as const) };
}

/** Closes the batch and hands its events to this run's later steps. */
export async function carryOn(context: RunContext, batch: { id: string; event_count: number }, fromSeq: number) {
  const { trx, run } = context;
  await closeBatch(trx, batch.id);
  const { limit, order } = retention(context);
  const events = await batchItems(trx, batch.id, fromSeq, limit, order);
  const latest = await latestBatchItem(trx, batch.id);
  const data = {
    ...((latest?.data as Record<string, unknown>) ?? {}),
    $batched_events: events.map((e) => e.data),
    $batched_events_count: batch.event_count - fromSeq + 1,
  };
  await mergeRunData(trx, run.id, data);
  context.namespaces.data = { ...context.namespaces.data, ...data };
}

/** A trigger's own data as an item of a batch or digest, without an earlier gathering's output. */
export function itemData(data: Record<string, unknown>): Record<string, unknown> {
  const { $batched_events: _events, $batched_events_count: _count, ...own } = data;
  return own;
}
