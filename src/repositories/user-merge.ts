import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

/**
 * Moves what belongs to user `fromId` over to `toId`, four statements whatever their number: object
 * subscriptions, list memberships (live and draft), category choices and channel restrictions.
 * Where `toId` already has the same subscription, membership or choice, its own is kept and the
 * other stays behind, to go when `fromId` is deleted.
 */
export async function moveUserBelongings(trx: Trx, fromId: number, toId: number): Promise<void> {
  await sql`update subscriptions s set user_id = ${toId}, updated_at = clock_timestamp()
    where s.user_id = ${fromId}
      and not exists (select 1 from subscriptions o where o.object_id = s.object_id and o.user_id = ${toId})`.execute(
    trx,
  );
  await sql`update subscriber_list_members m set user_id = ${toId}
    where m.user_id = ${fromId}
      and not exists (select 1 from subscriber_list_members o where o.list_pk = m.list_pk
        and o.version_pk is not distinct from m.version_pk and o.user_id = ${toId})`.execute(trx);
  await sql`update user_category_preferences p set user_id = ${toId}
    where p.user_id = ${fromId}
      and not exists (select 1 from user_category_preferences o where o.user_id = ${toId}
        and o.tenant_id = p.tenant_id and o.category = p.category)`.execute(trx);
  await sql`update user_channel_preferences p set user_id = ${toId}
    where p.user_id = ${fromId}
      and not exists (select 1 from user_channel_preferences o where o.user_id = ${toId}
        and o.tenant_id = p.tenant_id and o.channel = p.channel)`.execute(trx);
}

/**
 * Moves the engine's records of user `from` to user `to` (by distinct_id), two statements: every
 * message (the inbox feed is made of them), and the runs still to come, so that their later steps
 * reach the merged user. A run of an execution that already has one for `to` stays behind (one run
 * per recipient and execution); it finds no user and sends nothing.
 */
export async function moveUserMessages(trx: Trx, workspaceId: number, from: string, to: string): Promise<void> {
  await sql`update messages set distinct_id = ${to}
    where workspace_id = ${workspaceId} and recipient_type = 'user' and distinct_id = ${from}`.execute(trx);
  await sql`update workflow_runs r set distinct_id = ${to}, recipient_key = ${`user:${to}`}, updated_at = now()
    where r.workspace_id = ${workspaceId} and r.recipient_type = 'user' and r.distinct_id = ${from}
      and r.status in ('running', 'waiting')
      and not exists (select 1 from workflow_runs o where o.execution_id = r.execution_id
        and o.recipient_key = ${`user:${to}`})`.execute(trx);
}

export async function deleteUserById(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}
