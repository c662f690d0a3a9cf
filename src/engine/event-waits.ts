import type { Trx } from '../db/database.js';
import type { NewEvent } from '../domain/event-records.js';
import { recordWaitedEvents } from '../repositories/event-waits.js';
import { jobId } from './job-ids.js';
import { QUEUES, type Queue } from './queue.js';

/**
 * A tracked event wakes the runs of its recipient waiting for it in a branch_waituntil node, or routing
 * with it as their success event (send_smart_channel_routing with `success_is_event`), in the
 * transaction that stores the event: the event is appended to each wait and the run is enqueued at
 * once. The run then judges the event itself (docs/engine.md, "branch_waituntil").
 */
export async function wakeEventWaits(trx: Trx, queue: Queue, workspaceId: number, events: NewEvent[]) {
  const runIds = await recordWaitedEvents(trx, workspaceId, events);
  const key = events.map((e) => e.insert_id).join(',');
  await queue.sendMany(
    trx,
    QUEUES.run,
    runIds.map((runId) => ({ data: { runId }, options: { id: jobId('event-wake', runId, key) } })),
  );
}
