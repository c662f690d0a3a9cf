import { sql, type Kysely } from 'kysely';

// Frozen in time: provider callbacks (docs/channels.md, "Twilio status callbacks"). A message keeps the id its vendor
// gave it (Twilio's MessageSid), found again by workspace when the vendor reports the delivery; and the retention
// purge walks the webhook outbox by age (docs/operations.md, "Retention").

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('messages').addColumn('provider_message_id', 'text').execute();
  await sql`create index messages_provider_message_idx on messages (workspace_id, provider_message_id)
    where provider_message_id is not null`.execute(db);
  await db.schema.createIndex('webhook_deliveries_created_idx').on('webhook_deliveries').column('created_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_created_idx').ifExists().execute();
  await db.schema.dropIndex('messages_provider_message_idx').ifExists().execute();
  await db.schema.alterTable('messages').dropColumn('provider_message_id').execute();
}
