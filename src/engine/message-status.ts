import type { Db, Trx } from '../db/database.js';
import { publishInboxEvents } from '../repositories/inbox-events.js';
import { saveDeliveries, type DeliveryUpdate, type MessageRow } from '../repositories/messages.js';

/**
 * "A message's status changed", in one place (docs/engine.md, "Message status"). Every status the engine gives a
 * message — recorded by its run's step (`insertMessages`) or by its delivery (`saveStatusChanges`) — passes through
 * `statusesChanged`, in the transaction that writes it: what follows a change (the inbox's feed event today) hooks
 * in there, and is heard only if the change commits.
 */

/** A message whose status was just written, as what follows a change needs it. */
export type ChangedMessage = Pick<
  MessageRow,
  'id' | 'workspace_id' | 'channel' | 'status' | 'recipient_type' | 'distinct_id' | 'tenant_id'
>;

/** What follows status changes, in the transaction that wrote them: an inbox message delivered is announced to its feed. */
export async function statusesChanged(trx: Trx, changed: ChangedMessage[]) {
  await publishInboxEvents(
    trx,
    changed.filter(announced).map((m) => ({
      workspaceId: m.workspace_id,
      distinctId: m.distinct_id!,
      tenantId: m.tenant_id,
      event: 'new_notification' as const,
      data: { n_id: m.id },
    })),
  );
}

const announced = (m: ChangedMessage) =>
  m.channel === 'inbox' && m.status === 'delivered' && m.recipient_type === 'user' && m.distinct_id !== null;

/**
 * Deliveries' outcomes saved in one statement, with what follows them; `alongside` (the retries' jobs) in the same
 * transaction. A lone statement needs no transaction.
 */
export async function saveStatusChanges(
  db: Db,
  changes: { row: MessageRow; update: DeliveryUpdate }[],
  alongside?: (trx: Trx) => Promise<void>,
) {
  const updates = changes.map(({ row, update }) => ({ ...update, id: row.id }));
  const changed = changes.map(({ row, update }) => ({ ...row, status: update.status }));
  if (!alongside && !changed.some(announced)) {
    await saveDeliveries(db, updates);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await saveDeliveries(trx, updates);
    await statusesChanged(trx, changed);
    await alongside?.(trx);
  });
}
