import type { StepNote } from '../domain/run-steps.js';
import type { Trx } from '../db/database.js';
import {
  batchItems,
  closeBatch,
  findHeir,
  findOpenGatheringOf,
  latestBatchItem,
  liveItemCount,
  setBatchWaiter,
} from '../repositories/batches.js';
import { mergeRunData, reviveAbsorbedRun, type LockedRun } from '../repositories/runs.js';
import { jobId } from './job-ids.js';
import type { RunContext } from './types.js';
import type { NodeConfig } from '../schemas/workflow-nodes.js';
import { QUEUES, type Queue } from './queue.js';

/**
 * What batch and digest share once their gathering closes: the run that waited carries the events
 * on as `$batched_events` (up to `retain_count`, first or last per `retain_order`) and
 * `$batched_events_count`, with the latest trigger's data as its root data. A trigger cancelled while
 * it waits in a gathering leaves it: its data is neither listed nor counted (docs/engine.md, "cancel").
 */

const DEFAULT_RETAIN = 10;

/** What batch and digest nodes keep of their events (src/schemas/workflow-nodes.ts). */
type Retention = Pick<NodeConfig<'batch'> & NodeConfig<'digest'>, 'retain_count' | 'retain_order'>;

/** The events a gathering carries on: `retain_count` (an integer from 1 to 100, its schema's) of them. */
export const retention = (config: Retention) => ({
  limit: config.retain_count ?? DEFAULT_RETAIN,
  order: config.retain_order ?? 'last',
});

/** Closes the batch and hands its events to this run's later steps; returns what the run's trace records. */
export async function carryOn(
  context: RunContext,
  config: Retention,
  batch: { id: string },
  fromSeq: number,
): Promise<StepNote> {
  const { trx, run } = context;
  await closeBatch(trx, batch.id);
  const { limit, order } = retention(config);
  const events = await batchItems(trx, batch.id, fromSeq, limit, order);
  const latest = await latestBatchItem(trx, batch.id);
  const data = {
    ...((latest?.data as Record<string, unknown>) ?? {}),
    $batched_events: events.map((e) => e.data),
    $batched_events_count: await liveItemCount(trx, batch.id, fromSeq),
  };
  await mergeRunData(trx, run.id, data);
  context.namespaces.data = { ...context.namespaces.data, ...data };
  return { outcome: 'done', detail: { batch_id: batch.id, batched_events_count: data.$batched_events_count } };
}

/** A trigger's own data as an item of a batch or digest, without an earlier gathering's output. */
export function itemData(data: Record<string, unknown>): Record<string, unknown> {
  const { $batched_events: _events, $batched_events_count: _count, ...own } = data;
  return own;
}

/**
 * A run cancelled while it waits for its batch or digest hands the gathering to the next trigger not
 * cancelled (an absorbed run, which waits again at its node until the gathering's time), so the
 * triggers it absorbed are still sent; with none left the gathering closes and sends nothing.
 */
export async function handOverGathering(deps: { queue: Queue }, trx: Trx, run: LockedRun) {
  const gathering = await findOpenGatheringOf(trx, run.id);
  if (!gathering) return;
  const heir = await findHeir(trx, gathering.id, run.id);
  if (!heir) {
    await closeBatch(trx, gathering.id);
    return;
  }
  await setBatchWaiter(trx, gathering.id, heir);
  await reviveAbsorbedRun(trx, heir, gathering.closes_at);
  await deps.queue.send(
    trx,
    QUEUES.run,
    { runId: heir, due: gathering.closes_at.getTime() },
    { id: jobId('run-heir', heir, gathering.id), startAfter: gathering.closes_at },
  );
}
