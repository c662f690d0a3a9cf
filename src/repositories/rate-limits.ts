import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

/** The workflow ratelimit's slots (migrations/2026-11-26T80-flow.ts). */

export interface RateKey {
  workspaceId: number;
  workflowSlug: string;
  recipientKey: string;
}

/**
 * Takes a slot for the run when fewer than `count` runs of the key took one since `since`; a run
 * that already holds one (a retried step) keeps it. The key row is locked first, so runs of one
 * recipient decide one after the other. True: the run is admitted.
 */
export async function takeRateSlot(trx: Trx, key: RateKey, runId: string, count: number, since: Date, at: Date) {
  await sql`insert into workflow_rate_keys (workspace_id, workflow_slug, recipient_key, touched_at)
    values (${key.workspaceId}, ${key.workflowSlug}, ${key.recipientKey}, ${at})
    on conflict (workspace_id, workflow_slug, recipient_key) do update set touched_at = excluded.touched_at`.execute(
    trx,
  );
  const result = await sql<{ held: boolean; taken: number }>`
    select exists (select 1 from workflow_rate_slots where run_id = ${runId}) as held,
      (select count(*)::int from workflow_rate_slots
        where workspace_id = ${key.workspaceId} and workflow_slug = ${key.workflowSlug}
          and recipient_key = ${key.recipientKey} and taken_at > ${since}) as taken`.execute(trx);
  const { held, taken } = result.rows[0]!;
  if (held) return true;
  if (taken >= count) return false;
  await trx
    .insertInto('workflow_rate_slots')
    .values({
      run_id: runId,
      workspace_id: key.workspaceId,
      workflow_slug: key.workflowSlug,
      recipient_key: key.recipientKey,
      taken_at: at,
    })
    .execute();
  return true;
}

export async function markRateLimited(db: Db, runId: string) {
  await db.updateTable('workflow_runs').set({ rate_limited: true }).where('id', '=', runId).execute();
}
