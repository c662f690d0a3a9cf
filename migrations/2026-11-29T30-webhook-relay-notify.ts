import { sql, type Kysely } from 'kysely';

// Frozen in time: the outbox of delivery-status webhooks wakes the relay (engine/status-webhooks.ts). A statement
// that added events to webhook_deliveries notifies `herald_webhooks` (delivered at its commit, one per transaction);
// each worker LISTENs instead of reading the outbox every 0.5 s.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function webhook_deliveries_notify() returns trigger language plpgsql as $$
    begin
      if exists (select from added_deliveries) then perform pg_notify('herald_webhooks', ''); end if;
      return null;
    end $$`.execute(db);
  await sql`create trigger webhook_deliveries_notify after insert on webhook_deliveries
    referencing new table as added_deliveries
    for each statement execute function webhook_deliveries_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists webhook_deliveries_notify on webhook_deliveries`.execute(db);
  await sql`drop function if exists webhook_deliveries_notify()`.execute(db);
}
