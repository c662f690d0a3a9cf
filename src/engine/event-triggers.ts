import type { Trx } from '../db/database.js';
import { findEventWorkflows } from '../repositories/executions.js';
import type { NewEvent } from '../domain/event-records.js';
import { acceptTriggersIn, type IntakeRecord } from './intake.js';
import type { Queue } from './queue.js';

/**
 * Event-triggered workflows (docs/spec/engine.md §1): every live, enabled workflow whose
 * `trigger_events` names a tracked event runs for the event's distinct_id with its properties as
 * data, in the transaction that stores the event. The event's insert_id keys the trigger (ours), so
 * an event sent again starts nothing new, as it stores nothing new. A trigger the intake refuses (an
 * unknown tenant) does not refuse the event.
 */
export async function triggerEventWorkflows(trx: Trx, queue: Queue, workspaceId: number, events: NewEvent[]) {
  if (events.length === 0) return 0;
  const workflows = await findEventWorkflows(trx, workspaceId, [...new Set(events.map((e) => e.event))]);
  if (workflows.length === 0) return 0;
  const records: IntakeRecord[] = events.flatMap((event) =>
    workflows
      .filter((w) => (w.trigger_events as string[]).includes(event.event))
      .map((w) => ({
        workflow: w.slug,
        recipients: [{ kind: 'user' as const, distinctId: event.distinct_id, transient: false }],
        data: event.properties,
        actor: null,
        tenantId: event.tenant_id ?? 'default',
        idempotencyKey: `event:${event.insert_id}:${w.slug}`,
        cancellationKey: null,
        source: 'event' as const,
      })),
  );
  const results = await acceptTriggersIn(trx, queue, workspaceId, records);
  return results.filter((r) => r.ok).length;
}
