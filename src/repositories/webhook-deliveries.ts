import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../db/webhook-types.js';

/** The outbox of delivery-status events and each one's delivery state (docs/webhooks.md). */

export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;

/** Whether any event waits to be queued: one index probe, outside any transaction. */
export async function anyUnqueuedDelivery(db: Db) {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('queued_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Up to `limit` events not yet queued, oldest first, locked for the relay's transaction (skipping those another relay
 * holds): what their bodies are built from.
 */
export function pickUnqueuedDeliveries(trx: Trx, limit: number) {
  return trx
    .selectFrom('webhook_deliveries')
    .select(['id', 'message_id', 'type', 'occurred_at'])
    .where('queued_at', 'is', null)
    .orderBy('created_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Marks picked events queued with the bodies their attempts send, in one statement (a body already fixed wins). */
export async function markDeliveriesQueued(trx: Trx, payloads: { id: string; payload: string }[]) {
  if (payloads.length === 0) return;
  await sql`update webhook_deliveries d set queued_at = now(), payload = coalesce(d.payload, w.payload)
    from jsonb_to_recordset(${JSON.stringify(payloads)}::jsonb) as w(id text, payload text)
    where d.id = w.id and d.id = any(${payloads.map((p) => p.id)}::text[])`.execute(trx);
}

/** A delivery with its endpoint's URL, state and sealed secret. */
export type DeliveryWithEndpoint = WebhookDeliveryRow &
  Pick<Selectable<WebhookEndpointsTable>, 'url' | 'secret'> & { endpoint_active: boolean };

/**
 * Deliveries with their endpoints' URL, state and sealed secret, in one statement (a fetched batch of attempts); a
 * delivery whose endpoint is deleted is not there.
 */
export function findDeliveriesWithEndpoints(db: Db, ids: string[]) {
  return db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .selectAll('d')
    .select(['e.url', 'e.secret', 'e.is_active as endpoint_active'])
    .where('d.id', '=', sql<string>`any(${ids}::text[])`)
    .execute() as Promise<DeliveryWithEndpoint[]>;
}

/**
 * Fixes the bodies first attempts send, in one statement, for events queued without one (before the relay fixed
 * them); a body already fixed (by an earlier try of the same attempt) wins. Answers the body each delivery sends.
 */
export async function fixDeliveryPayloads(db: Db, payloads: { id: string; payload: string }[]) {
  if (payloads.length === 0) return new Map<string, string>();
  const { rows } = await sql<{ id: string; payload: string }>`
    update webhook_deliveries d set payload = coalesce(d.payload, w.payload)
    from jsonb_to_recordset(${JSON.stringify(payloads)}::jsonb) as w(id text, payload text)
    where d.id = w.id and d.id = any(${payloads.map((p) => p.id)}::text[])
    returning d.id, d.payload`.execute(db);
  return new Map(rows.map((row) => [row.id, row.payload]));
}

/** An attempt's outcome: `attempt` is the number this one had (a later write of the same attempt changes nothing). */
export async function recordDeliveryAttempt(
  db: Db,
  id: string,
  attempt: number,
  outcome: { status: 'pending' | 'delivered' | 'failed'; error: Record<string, unknown> | null },
) {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({
      attempts: attempt,
      status: outcome.status,
      last_error: outcome.error === null ? null : JSON.stringify(outcome.error),
      ...(outcome.status === 'delivered' ? { delivered_at: sql<Date>`now()` } : {}),
    })
    .where('id', '=', id)
    .where('attempts', '=', attempt - 1)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Delivered attempts, in one statement (a batch's); as `recordDeliveryAttempt`, a later write of one changes nothing. */
export async function recordDeliveredAttempts(db: Db, attempts: { id: string; attempt: number }[]) {
  if (attempts.length === 0) return;
  await sql`update webhook_deliveries d set attempts = w.attempt, status = 'delivered', last_error = null,
      delivered_at = now()
    from jsonb_to_recordset(${JSON.stringify(attempts)}::jsonb) as w(id text, attempt int)
    where d.id = w.id and d.attempts = w.attempt - 1 and d.id = any(${attempts.map((a) => a.id)}::text[])`.execute(db);
}
