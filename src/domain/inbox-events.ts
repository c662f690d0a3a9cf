/**
 * Feed changes for the browsers watching a feed (docs/spec/engine.md §8). They are published with
 * pg_notify in the writer's transaction (heard only if it commits), the same SQL on both engines,
 * so an API process hears what a worker process delivered (src/repositories/inbox-events.ts);
 * src/db/notify-listener.ts hears them, src/base/feed-socket.ts sends them to the browsers.
 */
export const INBOX_CHANNEL = 'herald_inbox';

export type InboxEventName = 'new_notification' | 'notification_update' | 'bulk_notification_update' | 'reset_badge';

export interface InboxEvent {
  workspaceId: number;
  distinctId: string;
  tenantId: string;
  event: InboxEventName;
  data: Record<string, unknown>;
}

// NOTIFY payloads stop at 8000 bytes: many ids go out as several events.
const IDS_PER_EVENT = 100;

/** Splits an event naming many notifications into events each small enough for one NOTIFY. */
export function inboxEventsFor(event: InboxEvent): InboxEvent[] {
  const ids = event.data.notification_ids;
  if (!Array.isArray(ids) || ids.length <= IDS_PER_EVENT) return [event];
  const parts: InboxEvent[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_EVENT)
    parts.push({ ...event, data: { ...event.data, notification_ids: ids.slice(i, i + IDS_PER_EVENT) } });
  return parts;
}

/** What goes over NOTIFY, each event small enough for one (src/repositories/inbox-events.ts). */
export const inboxPayloads = (events: InboxEvent[]) =>
  events
    .flatMap(inboxEventsFor)
    .map((event) =>
      JSON.stringify({ w: event.workspaceId, u: event.distinctId, t: event.tenantId, e: event.event, d: event.data }),
    );

/** Reads a NOTIFY payload back; anything malformed is dropped. */
export function readInboxEvent(payload: string | undefined): InboxEvent | undefined {
  try {
    const value = JSON.parse(payload ?? '') as { w?: unknown; u?: unknown; t?: unknown; e?: unknown; d?: unknown };
    if (typeof value.w !== 'number' || typeof value.u !== 'string' || typeof value.t !== 'string') return undefined;
    if (typeof value.e !== 'string' || !value.d || typeof value.d !== 'object') return undefined;
    return {
      workspaceId: value.w,
      distinctId: value.u,
      tenantId: value.t,
      event: value.e as InboxEventName,
      data: value.d as Record<string, unknown>,
    };
  } catch {
    return undefined;
  }
}

/** `notification_update` for each changed inbox message of a user (the server-side engagement API). */
export function inboxUpdates(
  rows: { id: string; workspace_id: number; channel: string; distinct_id: string | null; tenant_id: string }[],
  changed: ReadonlySet<string>,
  items: { message_id: string; action: string }[],
): InboxEvent[] {
  const lastAction = new Map(items.map((item) => [item.message_id, item.action]));
  return rows
    .filter((row) => row.channel === 'inbox' && row.distinct_id !== null && changed.has(row.id))
    .map((row) => ({
      workspaceId: row.workspace_id,
      distinctId: row.distinct_id!,
      tenantId: row.tenant_id,
      event: 'notification_update' as const,
      data: { n_id: row.id, action: lastAction.get(row.id) },
    }));
}
