import type { WebhookEndpointRow } from '../repositories/webhook-endpoints.js';
import { iso } from '../schemas/common.js';

/** An endpoint as the API shows it: never its secret (CreatedWebhookEndpoint adds it, once). */
export const presentWebhookEndpoint = (row: WebhookEndpointRow) => ({
  id: row.id,
  url: row.url,
  events: row.events,
  is_active: row.is_active,
  description: row.description,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});
