import { sql, type Kysely } from 'kysely';

// Frozen in time: delivery-status webhooks out (docs/webhooks.md). A workspace's endpoints, and the outbox of
// events for them: a trigger on messages writes an event for each subscribed active endpoint in the statement
// (and so the transaction) that changes a message's status or engagement, whichever code path writes it; a
// status change that rolls back leaves no event, and one that commits cannot lose its event.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'jsonb', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('description', 'text')
    // The signing secret, sealed by the SECRET_KEY's box (src/crypto/secret-box.ts).
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_workspace_idx')
    .on('webhook_endpoints')
    .columns(['workspace_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    // The `webhook-id` header: the same on every attempt.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'integer', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    // Set when its first job is queued (the relay moves the outbox into the durable queue).
    .addColumn('queued_at', 'timestamptz')
    // pending → delivered | failed
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    // The body, fixed by the first attempt: every retry sends the same bytes.
    .addColumn('payload', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'jsonb')
    .addColumn('delivered_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index webhook_deliveries_unqueued_idx on webhook_deliveries (created_at) where queued_at is null`.execute(
    db,
  );
  await db.schema
    .createIndex('webhook_deliveries_endpoint_idx')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at'])
    .execute();

  // The events a message's change reports (docs/webhooks.md): its status reaching sent, delivered, a failure or
  // a refusal, and each engagement time set (read again after unread reports again).
  await sql`
    create function webhook_event_types(old_status text, new_status text, old_seen timestamptz, new_seen timestamptz,
      old_read timestamptz, new_read timestamptz, old_clicked timestamptz, new_clicked timestamptz,
      old_dismissed timestamptz, new_dismissed timestamptz) returns text[] language sql immutable as $$
      select array_remove(array[
        case when new_status is distinct from old_status then case new_status
          when 'sent_by_vendor' then 'message.sent'
          when 'delivered' then 'message.delivered'
          when 'delivery_failure' then 'message.failed'
          when 'trigger_failed' then 'message.failed'
          when 'not_to_be_triggered' then 'message.refused' end end,
        case when old_seen is null and new_seen is not null then 'message.seen' end,
        case when new_read is not null and new_read is distinct from old_read then 'message.read' end,
        case when old_clicked is null and new_clicked is not null then 'message.clicked' end,
        case when old_dismissed is null and new_dismissed is not null then 'message.dismissed' end
      ], null)
    $$`.execute(db);
  // One pass per statement, not per row; with no active endpoint anywhere it ends at its first line.
  await sql`
    create function messages_status_webhooks() returns trigger language plpgsql as $$
    begin
      if not exists (select from webhook_endpoints where is_active) then return null; end if;
      if tg_op = 'INSERT' then
        insert into webhook_deliveries (id, workspace_id, endpoint_id, message_id, type, occurred_at)
        select 'msg_' || replace(gen_random_uuid()::text, '-', ''), n.workspace_id, e.id, n.id, t.type, now()
        from changed_messages n
        cross join lateral unnest(webhook_event_types(null, n.status, null, n.seen_at, null, n.read_at, null,
          n.clicked_at, null, n.dismissed_at)) as t(type)
        join webhook_endpoints e on e.workspace_id = n.workspace_id and e.is_active and e.events ? t.type;
      else
        insert into webhook_deliveries (id, workspace_id, endpoint_id, message_id, type, occurred_at)
        select 'msg_' || replace(gen_random_uuid()::text, '-', ''), n.workspace_id, e.id, n.id, t.type, now()
        from changed_messages n join previous_messages o on o.id = n.id
        cross join lateral unnest(webhook_event_types(o.status, n.status, o.seen_at, n.seen_at, o.read_at, n.read_at,
          o.clicked_at, n.clicked_at, o.dismissed_at, n.dismissed_at)) as t(type)
        join webhook_endpoints e on e.workspace_id = n.workspace_id and e.is_active and e.events ? t.type;
      end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger messages_webhooks_insert after insert on messages referencing new table as changed_messages
    for each statement execute function messages_status_webhooks()`.execute(db);
  await sql`create trigger messages_webhooks_update after update on messages
    referencing old table as previous_messages new table as changed_messages
    for each statement execute function messages_status_webhooks()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists messages_webhooks_insert on messages`.execute(db);
  await sql`drop trigger if exists messages_webhooks_update on messages`.execute(db);
  await sql`drop function if exists messages_status_webhooks()`.execute(db);
  await sql`drop function if exists webhook_event_types(text, text, timestamptz, timestamptz, timestamptz,
    timestamptz, timestamptz, timestamptz, timestamptz, timestamptz)`.execute(db);
  await db.schema.dropTable('webhook_deliveries').ifExists().execute();
  await db.schema.dropTable('webhook_endpoints').ifExists().execute();
}
