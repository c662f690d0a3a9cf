import type { Generated } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './types.js';

/** A workspace's delivery-status webhook endpoint (migrations/2026-11-27T70-webhook-endpoints.ts). */
export interface WebhookEndpointsTable {
  id: string;
  workspace_id: number;
  url: string;
  events: Json<string[]>;
  is_active: Generated<boolean>;
  description: string | null;
  /** Sealed by the secret box. */
  secret: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** One event for one endpoint: the outbox row the messages trigger writes, then its delivery's state. */
export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: number;
  endpoint_id: string;
  message_id: string;
  type: string;
  occurred_at: Timestamp;
  queued_at: NullableTimestamp;
  status: Generated<string>;
  payload: string | null;
  attempts: Generated<number>;
  last_error: Json<Record<string, unknown>> | null;
  delivered_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface WebhookTables {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
