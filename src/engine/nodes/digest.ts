import { nextScheduledTime, type Schedule } from '../../domain/calendar.js';
import { readExpression } from '../../domain/paths.js';
import { newUlid } from '../../ids.js';
import { addBatchItem, closeBatch, findWaitedBatch, joinDigest, liveItemCount } from '../../repositories/batches.js';
import { carryOn, itemData } from '../gathering.js';
import { nodeTimeZone } from './timewindow.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `digest`: a recipient's triggers gather until the schedule's next time (calendar time from
 * `dtstart` and `time`, not from the first trigger), then the first trigger's run carries them on as
 * `$batched_events` / `$batched_events_count`; the others end here (`batched`). With fewer than
 * `trigger_min_count` triggers the digest is skipped. Each period is one row, unique per (workflow,
 * node, recipient, time): it fires once, whatever the number of workers or restarts.
 */

/** A late trigger meets a digest already sent; it tries the following periods, a few at most. */
const PERIOD_ATTEMPTS = 3;

export const digest: NodeHandlerOf<'digest'> = async (context, config) => {
  const { trx, run, namespaces, now } = context;
  const waited = await findWaitedBatch(trx, run.id, context.nodeRef);
  if (waited) {
    if (waited.status !== 'open') return { kind: 'next' };
    const min = config.trigger_min_count ?? 1;
    const count = await liveItemCount(trx, waited.id, 1);
    if (count < min) {
      await closeBatch(trx, waited.id);
      return {
        kind: 'stop',
        status: 'skipped',
        step: { outcome: 'skipped', detail: { digest_id: waited.id, trigger_min_count: min, count } },
      };
    }
    return { kind: 'next', step: await carryOn(context, config, waited, 1) };
  }

  const raw =
    config.schedule_type === 'dynamic'
      ? readExpression(namespaces, String(config.dynamic_schedule_expr ?? ''))
      : config.schedule;
  if (typeof raw !== 'object' || raw === null) return { kind: 'next' };
  const schedule = raw as Schedule & { tz_selection?: unknown; tz_fixed?: unknown };
  const zone = nodeTimeZone(context, schedule.tz_selection, schedule.tz_fixed);
  let firesAt = nextScheduledTime(schedule, zone, now);
  for (let attempt = 0; attempt < PERIOD_ATTEMPTS && firesAt !== undefined; attempt++) {
    const joined = await joinDigest(
      trx,
      newUlid(),
      {
        workspaceId: run.workspace_id,
        workflowSlug: run.workflow_slug,
        nodeRef: context.nodeRef,
        recipientKey: run.recipient_key,
      },
      new Date(firesAt),
      run.id,
    );
    if (joined.status !== 'open') {
      firesAt = nextScheduledTime(schedule, zone, firesAt);
      continue;
    }
    await addBatchItem(trx, joined.id, joined.event_count, run.id, itemData(namespaces.data));
    const detail = { digest_id: joined.id, flushes_at: new Date(firesAt).toISOString() };
    if (joined.waiter_run_id !== run.id)
      return {
        kind: 'stop',
        status: 'batched',
        step: { outcome: 'digested', detail: { ...detail, absorbed_into: joined.waiter_run_id } },
      };
    return { kind: 'wait', until: new Date(firesAt), again: true, step: { outcome: 'digested', detail } };
  }
  // A schedule that never fires (or a digest that cannot be joined) does not hold the run back (ours).
  return { kind: 'next' };
};
