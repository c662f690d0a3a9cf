import type { Db } from '../db/database.js';
import { presentMessage } from '../presenters/messages.js';
import { findMessagesByIds } from '../repositories/messages.js';
import type { WebhookDeliveryRow } from '../repositories/webhook-deliveries.js';

/**
 * The bodies of delivery-status events (docs/spec/product.md §5): `{type, timestamp, data}`, `data` the message as
 * `GET /v1/message/{id}/` shows it when the event is first sent (a message purged since shows its id only). Their
 * messages are read in one statement; the bodies come back by delivery id.
 */
export async function webhookEventBodies(
  db: Db,
  deliveries: Pick<WebhookDeliveryRow, 'id' | 'message_id' | 'type' | 'occurred_at'>[],
) {
  const bodies = new Map<string, string>();
  if (deliveries.length === 0) return bodies;
  const messages = new Map(
    (await findMessagesByIds(db, [...new Set(deliveries.map((d) => d.message_id))])).map((m) => [m.id, m]),
  );
  for (const delivery of deliveries) {
    const message = messages.get(delivery.message_id);
    bodies.set(
      delivery.id,
      JSON.stringify({
        type: delivery.type,
        timestamp: new Date(delivery.occurred_at).toISOString(),
        data: message ? presentMessage(message) : { message_id: delivery.message_id },
      }),
    );
  }
  return bodies;
}
