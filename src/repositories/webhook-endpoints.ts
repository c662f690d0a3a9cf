import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.js';
import type { WebhookEndpointsTable } from '../db/webhook-types.js';

/** A workspace's delivery-status webhook endpoints (docs/webhooks.md). */

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

export interface WebhookEndpointFields {
  url?: string;
  events?: string[];
  is_active?: boolean;
  description?: string | null;
}

export async function listWebhookEndpoints(db: Db, workspaceId: number, page: { limit: number; offset: number }) {
  const scope = db.selectFrom('webhook_endpoints').where('workspace_id', '=', workspaceId);
  const [rows, total] = await Promise.all([
    scope.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    scope.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export function findWebhookEndpoint(db: Db, workspaceId: number, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function insertWebhookEndpoint(
  db: Db,
  row: {
    id: string;
    workspaceId: number;
    url: string;
    events: string[];
    isActive: boolean;
    description: string | null;
    secret: string;
  },
) {
  return db
    .insertInto('webhook_endpoints')
    .values({
      id: row.id,
      workspace_id: row.workspaceId,
      url: row.url,
      events: JSON.stringify(row.events),
      is_active: row.isActive,
      description: row.description,
      secret: row.secret,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The fields given, changed in one statement; undefined when this workspace has no such endpoint. */
export function updateWebhookEndpoint(
  db: Db,
  workspaceId: number,
  id: string,
  fields: WebhookEndpointFields & { secret?: string },
) {
  const { events, ...rest } = fields;
  return db
    .updateTable('webhook_endpoints')
    .set({ ...rest, ...(events ? { events: JSON.stringify(events) } : {}), updated_at: sql`now()` })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes an endpoint and, by cascade, its deliveries still to be made; false when there was none. */
export async function deleteWebhookEndpoint(db: Db, workspaceId: number, id: string) {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
