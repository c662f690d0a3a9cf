import { sql } from 'kysely';
import type { Trx } from '../db/database.js';
import { INBOX_CHANNEL, inboxPayloads, type InboxEvent } from '../domain/inbox-events.js';

/** Publishes feed events with the caller's transaction (heard only if it commits), in one statement. */
export async function publishInboxEvents(trx: Trx, events: InboxEvent[]) {
  const payloads = inboxPayloads(events);
  if (payloads.length === 0) return;
  await sql`select pg_notify(${INBOX_CHANNEL}, payload)
    from jsonb_array_elements_text(${JSON.stringify(payloads)}::jsonb) as payload`.execute(trx);
}
