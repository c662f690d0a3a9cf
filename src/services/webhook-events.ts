import type { Db } from '../db/database.js';
import { presentMessage } from '../presenters/messages.js';
import { findMessageById } from '../repositories/messages.js';
import type { WebhookDeliveryRow } from '../repositories/webhook-deliveries.js';

/**
 * The body of a delivery-status event (docs/spec/product.md §5): `{type, timestamp, data}`, `data` the message
 * as `GET /v1/message/{id}/` shows it when the event is first sent (a message purged since shows its id only).
 */
export async function webhookEventBody(
  db: Db,
  delivery: Pick<WebhookDeliveryRow, 'message_id' | 'type' | 'occurred_at'>,
) {
  const message = await findMessageById(db, delivery.message_id);
  return JSON.stringify({
    type: delivery.type,
    timestamp: new Date(delivery.occurred_at).toISOString(),
    data: message ? presentMessage(message) : { message_id: delivery.message_id },
  });
}
