import { sql, type RawBuilder } from 'kysely';
import { encodeTime } from 'ulid';
import type { Db } from '../db/database.js';

/**
 * The retention purge's SQL (docs/operations.md, "Retention"): each function deletes at most `limit`
 * rows older than `cutoff` from one table and answers how many went. A run that is still running,
 * waiting or gathered into a batch is live: neither it, nor its trigger, nor its messages, its event
 * waits or its batches are touched, however old.
 */

/** Run statuses a run can still move on from. */
const LIVE_RUN = sql`('running', 'waiting', 'batched')`;

/**
 * The run `runId` names is not live (or is gone). A lookup by primary key for each candidate row: as `not exists`,
 * the planner, expecting next to no live run, scanned the whole runs table for every batch (0.55 s a batch of
 * messages beside 450,000 runs; BENCHMARKS.md, "Retention").
 */
const runNotLive = (runId: RawBuilder<unknown>) =>
  sql`coalesce((select r.status from workflow_runs r where r.id = ${runId}), '') not in ${LIVE_RUN}`;

/**
 * The smallest ULID made at `cutoff`: ids of messages, runs and triggers are ULIDs (src/ids.ts), so
 * `id < this` walks the primary key's oldest end instead of scanning the whole table.
 */
const firstIdAt = (cutoff: Date) => `${encodeTime(cutoff.getTime(), 10)}0000000000000000`;

async function deleted(db: Db, query: RawBuilder<unknown>) {
  const result = await query.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Deletes up to `limit` rows of a table keyed by ULIDs, oldest first, made before `cutoff` and matching `where` (on `t`). */
const oldestFirst = (db: Db, table: string, cutoff: Date, limit: number, where: RawBuilder<unknown>) =>
  deleted(
    db,
    sql`delete from ${sql.table(table)} where id = any(array(
      select t.id from ${sql.table(table)} t where t.id < ${firstIdAt(cutoff)} and ${where} order by t.id limit ${limit}))`,
  );

export const purges = {
  /** Messages made before the cutoff, no longer in flight, of a run no longer live. */
  messages: (db: Db, cutoff: Date, limit: number) =>
    oldestFirst(
      db,
      'messages',
      cutoff,
      limit,
      sql`t.created_at < ${cutoff} and t.status not in ('to_be_triggered', 'triggered')
        and ${runNotLive(sql.ref('t.run_id'))}`,
    ),
  /** Runs that finished (last changed) before the cutoff. */
  runs: (db: Db, cutoff: Date, limit: number) =>
    oldestFirst(db, 'workflow_runs', cutoff, limit, sql`t.updated_at < ${cutoff} and t.status not in ${LIVE_RUN}`),
  /** Triggers accepted before the cutoff with no run left (their runs went with `runs`, or they had none). */
  executions: (db: Db, cutoff: Date, limit: number) =>
    oldestFirst(
      db,
      'executions',
      cutoff,
      limit,
      sql`t.created_at < ${cutoff} and not exists (select 1 from workflow_runs r where r.execution_id = t.id)`,
    ),
  /** Trigger idempotency keys (a key is only honoured for 24 hours). */
  idempotency_keys: (db: Db, cutoff: Date, limit: number) =>
    deleted(
      db,
      sql`delete from trigger_idempotency_keys where (workspace_id, idempotency_key) in (
        select workspace_id, idempotency_key from trigger_idempotency_keys where created_at < ${cutoff} limit ${limit})`,
    ),
  /** Events received before the cutoff. */
  events: (db: Db, cutoff: Date, limit: number) =>
    deleted(
      db,
      sql`delete from events where id = any(array(
        select id from events where received_at < ${cutoff} order by id limit ${limit}))`,
    ),
  /** Rate-limit slots taken before the cutoff (a window is far shorter). */
  rate_slots: (db: Db, cutoff: Date, limit: number) =>
    deleted(
      db,
      sql`delete from workflow_rate_slots where run_id = any(array(
        select run_id from workflow_rate_slots where taken_at < ${cutoff} limit ${limit}))`,
    ),
  /** Rate-limit keys untouched since the cutoff with no slot left (the next run of the key writes it again). */
  rate_keys: (db: Db, cutoff: Date, limit: number) =>
    deleted(
      db,
      sql`delete from workflow_rate_keys where (workspace_id, workflow_slug, recipient_key) in (
        select k.workspace_id, k.workflow_slug, k.recipient_key from workflow_rate_keys k
         where k.touched_at < ${cutoff}
           and not exists (select 1 from workflow_rate_slots s where s.workspace_id = k.workspace_id
             and s.workflow_slug = k.workflow_slug and s.recipient_key = k.recipient_key)
         limit ${limit})`,
    ),
  /** Event waits no longer waiting, made before the cutoff, of a run no longer live. */
  event_waits: (db: Db, cutoff: Date, limit: number) =>
    deleted(
      db,
      sql`delete from workflow_event_waits where (run_id, node_ref) in (
        select w.run_id, w.node_ref from workflow_event_waits w
         where w.created_at < ${cutoff} and w.status <> 'waiting' and ${runNotLive(sql.ref('w.run_id'))}
         limit ${limit})`,
    ),
  /** Batches (and their items) opened before the cutoff, closed, whose waiting run is no longer live. */
  batches: (db: Db, cutoff: Date, limit: number) =>
    deleted(
      db,
      sql`delete from workflow_batches where id = any(array(
        select b.id from workflow_batches b
         where b.created_at < ${cutoff} and b.status <> 'open' and ${runNotLive(sql.ref('b.waiter_run_id'))}
         limit ${limit}))`,
    ),
  /**
   * Delivery-status webhook events (docs/webhooks.md) made before the cutoff: delivered or failed ones, and pending
   * ones too, but never one made in the last 24 hours (its retries' window), whatever the cutoff.
   */
  webhook_deliveries: (db: Db, cutoff: Date, limit: number) =>
    deleted(
      db,
      sql`delete from webhook_deliveries where id = any(array(
        select id from webhook_deliveries
         where created_at < ${cutoff}
           and (status <> 'pending' or created_at < now() - interval '24 hours')
         order by created_at limit ${limit}))`,
    ),
} satisfies Record<string, (db: Db, cutoff: Date, limit: number) => Promise<number>>;
