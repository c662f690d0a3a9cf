import { sql } from 'kysely';
import { PLANNED_EACH_TIME, type Db, type Trx } from '../db/database.js';
import type { RunStep } from '../domain/run-steps.js';

/** One recipient's run of an execution (a child execution: its id is the messages' execution_id). */

export interface NewRun {
  id: string;
  recipient_key: string;
  recipient_type: 'user' | 'object';
  distinct_id: string | null;
  object_type: string | null;
  object_id: string | null;
  inline: Record<string, unknown> | null;
  subscription: Record<string, unknown> | null;
}

/** Inserts runs; a recipient that already has a run in the execution keeps it. Returns the runs inserted. */
export function insertRuns(db: Db, workspaceId: number, executionId: string, runs: NewRun[]) {
  return insertRunsOf(
    db,
    runs.map((run) => ({ ...run, execution_id: executionId, workspace_id: workspaceId })),
  );
}

/**
 * Runs of several executions (a batch of trigger jobs) in one statement; as insertRuns. The rows
 * travel as one JSON parameter: a batch of 100 trigger jobs of 100 recipients each is 10,000 runs,
 * which as bound values would pass the parameters either engine takes (MAX_BIND_PARAMETERS).
 */
export async function insertRunsOf(db: Db, runs: (NewRun & { execution_id: string; workspace_id: number })[]) {
  if (runs.length === 0) return [];
  const { rows } =
    await sql<InsertedRun>`insert into workflow_runs (id, execution_id, workspace_id, recipient_key, recipient_type, distinct_id,
      object_type, object_id, inline, subscription)
    select r.id, r.execution_id, r.workspace_id, r.recipient_key, r.recipient_type, r.distinct_id,
      r.object_type, r.object_id, r.inline, r.subscription
    from jsonb_to_recordset(${JSON.stringify(runs)}::jsonb) as r(id text, execution_id text, workspace_id integer,
      recipient_key text, recipient_type text, distinct_id text, object_type text, object_id text, inline jsonb,
      subscription jsonb)
    on conflict (execution_id, recipient_key) do nothing
    returning id, execution_id, workspace_id, recipient_key, recipient_type, distinct_id, object_type, object_id, inline,
      subscription, data as run_data, status, position, resume_at, rate_limited`.execute(db);
  return rows;
}

/** A run as inserted: its own columns as `lockRun` reads them, without its execution's. */
export type InsertedRun = Pick<
  LockedRun,
  | 'id'
  | 'execution_id'
  | 'workspace_id'
  | 'recipient_key'
  | 'recipient_type'
  | 'distinct_id'
  | 'object_type'
  | 'object_id'
  | 'inline'
  | 'subscription'
  | 'run_data'
  | 'status'
  | 'position'
  | 'resume_at'
  | 'rate_limited'
>;

const runColumns = (db: Db) =>
  db
    .selectFrom('workflow_runs as r')
    .innerJoin('executions as e', 'e.id', 'r.execution_id')
    .select([
      'r.id',
      'r.execution_id',
      'r.workspace_id',
      'r.recipient_key',
      'r.recipient_type',
      'r.distinct_id',
      'r.object_type',
      'r.object_id',
      'r.inline',
      'r.subscription',
      'r.data as run_data',
      'r.status',
      'r.position',
      'r.resume_at',
      'r.rate_limited',
      'e.workflow_id',
      'e.workflow_slug',
      'e.version_no',
      'e.category',
      'e.tree',
      'e.data',
      'e.actor',
      'e.tenant_id',
      'e.idempotency_key',
      'e.status as execution_status',
      'e.parent_run_id',
      'e.invoke_depth',
    ]);
const selectRun = (db: Db, runId: string) => runColumns(db).where('r.id', '=', runId);

/** The run with its execution, locked until the transaction ends: one worker at a time moves a run. */
export const lockRun = (trx: Trx, runId: string) => selectRun(trx, runId).forUpdate('r').executeTakeFirst();

/** Many runs locked in one statement, in id order (every batch locks in that order: no deadlock between workers). */
export const lockRuns = (trx: Trx, runIds: string[]) =>
  runColumns(trx)
    .where(
      'r.id',
      'in',
      sql<string>`(select value from jsonb_array_elements_text(${JSON.stringify(runIds)}::jsonb) as ids(value))`,
    )
    .orderBy('r.id')
    .forUpdate('r')
    .modifyEnd(sql.raw(PLANNED_EACH_TIME))
    .execute();
/** Many runs with their executions, unlocked, in one statement (a batch of deliveries). */
export const findRuns = (db: Db, runIds: string[]) =>
  runColumns(db)
    .where(
      'r.id',
      'in',
      sql<string>`(select value from jsonb_array_elements_text(${JSON.stringify(runIds)}::jsonb) as ids(value))`,
    )
    .modifyEnd(sql.raw(PLANNED_EACH_TIME))
    .execute();
export type LockedRun = NonNullable<Awaited<ReturnType<typeof lockRun>>>;

export async function saveRunProgress(db: Db, runId: string, progress: RunProgress) {
  await db
    .updateTable('workflow_runs')
    .set({
      status: progress.status,
      position: JSON.stringify(progress.position),
      resume_at: progress.resumeAt ?? null,
      ...(progress.data ? { data: JSON.stringify(progress.data) } : {}),
      ...(progress.steps?.length ? { steps: sql`steps || ${JSON.stringify(progress.steps)}::jsonb` } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', runId)
    .execute();
}

/**
 * A step's end: the run's status and position, and the trace of what the step did (appended to the run's); `data`,
 * when given, replaces the run's data (an outside call's answer merged in).
 */
export type RunProgress = {
  status: string;
  position: number[];
  resumeAt?: Date | null;
  steps?: RunStep[];
  data?: Record<string, unknown>;
};

/**
 * The progress of many runs in one statement (a batch of run steps). The ids are also given as an
 * array, whose length the planner knows: joined on the record set alone (always estimated at 100
 * rows) it hashed a sequential scan of the whole runs table once that table was small enough.
 */
export async function saveRunsProgress(db: Db, progress: (RunProgress & { id: string })[]) {
  if (progress.length === 0) return;
  const rows = progress.map((p) => ({
    id: p.id,
    status: p.status,
    position: p.position,
    resume_at: p.resumeAt ? p.resumeAt.toISOString() : null,
    steps: p.steps ?? [],
    data: p.data ?? null,
  }));
  await sql`update workflow_runs r set status = w.status, position = w.position, resume_at = w.resume_at,
      steps = r.steps || w.steps, data = coalesce(w.data, r.data), updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as w(id text, status text, position jsonb, resume_at timestamptz, steps jsonb, data jsonb)
    where r.id = w.id and r.id = any(${rows.map((row) => row.id)}::text[])${sql.raw(PLANNED_EACH_TIME)}`.execute(db);
}

/**
 * One page of an object's subscribers after `after` (a subscription id), users and child objects.
 * The page is cut before the joins: a plan that reads the object's remaining subscriptions unordered
 * (stale statistics: a large object grown since the last ANALYZE) then sorts a few thousand narrow
 * rows, instead of joining every remaining subscriber's user first (163 ms against 17 ms for a page
 * in the middle of 100,000 with the statistics missing; 1.2 ms with them).
 */
export function findSubscriberPage(db: Db, objectId: number, after: number, limit: number) {
  return db
    .selectFrom((eb) =>
      eb
        .selectFrom('subscriptions')
        .select(['id', 'properties', 'user_id', 'child_object_id'])
        .where('object_id', '=', objectId)
        .where('id', '>', after)
        .orderBy('id')
        .limit(limit)
        .as('s'),
    )
    .leftJoin('users as u', 'u.id', 's.user_id')
    .leftJoin('objects as o', 'o.id', 's.child_object_id')
    .select([
      's.id',
      's.properties',
      'u.distinct_id',
      'o.id as child_id',
      'o.object_type as child_type',
      'o.object_id as child_object_id',
    ])
    .orderBy('s.id')
    .execute();
}

/** Adds to what the run's later steps read as its data (a batch's events, an answer). */
export async function mergeRunData(db: Db, runId: string, data: Record<string, unknown>) {
  await sql`update workflow_runs set data = data || ${JSON.stringify(data)}::jsonb, updated_at = now() where id = ${runId}`.execute(
    db,
  );
}

/** An absorbed run takes over its gathering: it waits again, at the node where it stopped, until `resumeAt`. */
export async function reviveAbsorbedRun(db: Db, runId: string, resumeAt: Date) {
  await db
    .updateTable('workflow_runs')
    .set({ status: 'waiting', resume_at: resumeAt, updated_at: sql`now()` })
    .where('id', '=', runId)
    .where('status', '=', 'batched')
    .execute();
}
