import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

/** The batch node's gatherings (migrations/2026-11-26T80-flow.ts). */

export interface BatchKey {
  workspaceId: number;
  workflowSlug: string;
  nodeRef: string;
  recipientKey: string;
  batchKey: string;
}

/**
 * Adds a trigger to the open batch of its key, opening one when there is none: one statement, so two
 * triggers of the same key arriving together both land in one batch (the partial unique index decides,
 * and the loser counts itself in). The batch row stays locked until the caller's transaction ends.
 */
export async function joinBatch(trx: Trx, id: string, key: BatchKey, closesAt: Date) {
  const result = await sql<{ id: string; event_count: number; closes_at: Date; waiter_run_id: string | null }>`
    insert into workflow_batches (id, workspace_id, workflow_slug, node_ref, recipient_key, batch_key, closes_at)
    values (${id}, ${key.workspaceId}, ${key.workflowSlug}, ${key.nodeRef}, ${key.recipientKey}, ${key.batchKey}, ${closesAt})
    on conflict (workspace_id, workflow_slug, node_ref, recipient_key, batch_key) where kind = 'batch' and status = 'open'
    do update set event_count = workflow_batches.event_count + 1
    returning id, event_count, closes_at, waiter_run_id`.execute(trx);
  return result.rows[0]!;
}

export async function setBatchWaiter(db: Db, batchId: string, runId: string) {
  await db.updateTable('workflow_batches').set({ waiter_run_id: runId }).where('id', '=', batchId).execute();
}

export async function addBatchItem(db: Db, batchId: string, seq: number, runId: string, data: object) {
  await db
    .insertInto('workflow_batch_items')
    .values({ batch_id: batchId, seq, run_id: runId, data: JSON.stringify(data) })
    .execute();
}

/** The batch or digest this run waits on at this node, locked. */
export const findWaitedBatch = (trx: Trx, runId: string, nodeRef: string) =>
  trx
    .selectFrom('workflow_batches')
    .select(['id', 'status', 'closes_at', 'event_count'])
    .where('waiter_run_id', '=', runId)
    .where('node_ref', '=', nodeRef)
    .forUpdate()
    .executeTakeFirst();

/**
 * Adds a trigger to the digest of the period ending at `firesAt`, opening it with this run as the
 * one that waits for it. A digest already sent is left as it is and answered `closed`: the caller
 * moves to the next period.
 */
export async function joinDigest(trx: Trx, id: string, key: Omit<BatchKey, 'batchKey'>, firesAt: Date, runId: string) {
  const result = await sql<{ id: string; status: string; event_count: number; waiter_run_id: string }>`
    insert into workflow_batches
      (id, kind, workspace_id, workflow_slug, node_ref, recipient_key, batch_key, closes_at, waiter_run_id)
    values (${id}, 'digest', ${key.workspaceId}, ${key.workflowSlug}, ${key.nodeRef}, ${key.recipientKey}, '', ${firesAt}, ${runId})
    on conflict (workspace_id, workflow_slug, node_ref, recipient_key, closes_at) where kind = 'digest'
    do update set event_count = workflow_batches.event_count + (case when workflow_batches.status = 'open' then 1 else 0 end)
    returning id, status, event_count, waiter_run_id`.execute(trx);
  return result.rows[0]!;
}

export async function closeBatch(db: Db, batchId: string) {
  await db.updateTable('workflow_batches').set({ status: 'closed' }).where('id', '=', batchId).execute();
}

/** A gathering's items whose trigger was not cancelled: a cancelled trigger leaves the batch or digest. */
const liveItems = (db: Db, batchId: string) =>
  db
    .selectFrom('workflow_batch_items as i')
    .innerJoin('workflow_runs as r', 'r.id', 'i.run_id')
    .innerJoin('executions as e', 'e.id', 'r.execution_id')
    .where('i.batch_id', '=', batchId)
    .where('e.status', '!=', 'cancelled');

/**
 * Items in the order their triggers were accepted (the execution's `created_at`), not the order
 * workers happened to add them: "the last three events" are the last three triggered. (ours)
 */
export async function batchItems(db: Db, batchId: string, fromSeq: number, limit: number, order: 'first' | 'last') {
  const direction = order === 'first' ? 'asc' : 'desc';
  const rows = await liveItems(db, batchId)
    .select(['i.seq', 'i.data'])
    .where('i.seq', '>=', fromSeq)
    .orderBy('e.created_at', direction)
    .orderBy('i.seq', direction)
    .limit(limit)
    .execute();
  return order === 'first' ? rows : rows.reverse();
}

export async function latestBatchItem(db: Db, batchId: string) {
  return liveItems(db, batchId)
    .select(['i.seq', 'i.data'])
    .orderBy('e.created_at', 'desc')
    .orderBy('i.seq', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** How many items from `fromSeq` on were not cancelled. */
export async function liveItemCount(db: Db, batchId: string, fromSeq: number): Promise<number> {
  const row = await liveItems(db, batchId)
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('i.seq', '>=', fromSeq)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The open batch or digest this run waits for, at whichever node, locked. */
export const findOpenGatheringOf = (trx: Trx, runId: string) =>
  trx
    .selectFrom('workflow_batches')
    .select(['id', 'closes_at'])
    .where('waiter_run_id', '=', runId)
    .where('status', '=', 'open')
    .forUpdate()
    .executeTakeFirst();

/**
 * The run that takes over a gathering from its cancelled waiter: the earliest trigger after the
 * waiter's own whose run ended absorbed (`batched`) and whose execution is not cancelled.
 */
export async function findHeir(db: Db, batchId: string, waiterRunId: string) {
  const row = await liveItems(db, batchId)
    .select('i.run_id')
    .where('r.status', '=', 'batched')
    .where(
      'i.seq',
      '>',
      db
        .selectFrom('workflow_batch_items')
        .select('seq')
        .where('batch_id', '=', batchId)
        .where('run_id', '=', waiterRunId),
    )
    .orderBy('i.seq')
    .limit(1)
    .executeTakeFirst();
  return row?.run_id;
}
