import { applyUpsert } from '../domain/entity-operations.js';
import type { Db, Trx } from '../db/database.js';
import { newUlid } from '../ids.js';
import type { Recipient } from '../domain/trigger-records.js';
import { findExecutions, findExecutionStatus } from '../repositories/executions.js';
import { findObjectsOf } from '../repositories/objects.js';
import {
  findSubscriberPage,
  insertRuns,
  insertRunsOf,
  type InsertedRun,
  type LockedRun,
  type NewRun,
} from '../repositories/runs.js';
import { findMemberPage } from '../repositories/list-members.js';
import { findListIdsOf } from '../repositories/subscriber-lists.js';
import { markWorkflowsExecuted } from '../repositories/workflows.js';
import { jobId } from './job-ids.js';
import { QUEUES, type Queue } from './queue.js';
import { RUN_BATCH_SIZE, type RunBatchJob } from './runner.js';

/**
 * Recipients into runs (docs/spec/engine.md §2). The trigger job makes the named recipients' runs;
 * each object's subscribers are paged by fan-out jobs, a fixed number of statements per page. A
 * run's (execution, recipient) key makes a user reached twice run once and an object expand once.
 */

/** How deep object subscriptions are followed (ours: objects subscribed to objects, then their subscribers). */
export const MAX_OBJECT_DEPTH = 2;

/** The most new runs a batch of trigger jobs steps in its own transaction; more get run jobs. */
const MAX_STEPPED_AT_START = 100;

export interface FanoutJob {
  executionId: string;
  workspaceId: number;
  objectId: number;
  depth: number;
  after: number;
}

export interface ListFanoutJob {
  executionId: string;
  workspaceId: number;
  listPk: number;
  /** The last member row id of the previous page. */
  after: number;
}

export const userKey = (distinctId: string) => `user:${distinctId}`;
export const objectKey = (objectType: string, objectId: string) => `object:${JSON.stringify([objectType, objectId])}`;

/** A user's run (exported for the workflow test run, src/engine/test-run.ts). */
export function userRun(
  recipient: Extract<Recipient, { kind: 'user' }>,
  subscription: Record<string, unknown> | null,
): NewRun {
  const inline =
    recipient.transient && recipient.inline
      ? (applyUpsert({ properties: {}, channels: {} }, recipient.inline) as unknown as Record<string, unknown>)
      : null;
  return {
    id: newUlid(),
    recipient_key: userKey(recipient.distinctId),
    recipient_type: 'user',
    distinct_id: recipient.distinctId,
    object_type: null,
    object_id: null,
    inline,
    subscription,
  };
}

const objectRun = (objectType: string, objectId: string, subscription: Record<string, unknown> | null): NewRun => ({
  id: newUlid(),
  recipient_key: objectKey(objectType, objectId),
  recipient_type: 'object',
  distinct_id: null,
  object_type: objectType,
  object_id: objectId,
  inline: null,
  subscription,
});

const runJobs = (runs: { id: string }[]) =>
  runs.map((run) => ({ data: { runId: run.id }, options: { id: jobId('run', run.id, 'start') } }));

/**
 * A page's new runs as run-batch jobs: a queue job per batch of runs, not per run (each job is
 * written, fetched and completed: three row versions and their index entries in pg-boss's table).
 */
async function sendRunBatches(db: Db, queue: Queue, runs: { id: string }[]) {
  const jobs: { data: RunBatchJob; options: { id: string } }[] = [];
  for (let i = 0; i < runs.length; i += RUN_BATCH_SIZE) {
    const runIds = runs.slice(i, i + RUN_BATCH_SIZE).map((run) => run.id);
    jobs.push({ data: { runIds }, options: { id: jobId('run-batch', runIds[0]!, 'start') } });
  }
  await queue.sendMany(db, QUEUES.runBatch, jobs);
}

/**
 * Trigger jobs, any number in one transaction (a fetched batch): the executions read, their workflows
 * marked executed, every named recipient's run inserted and its run job enqueued, each broadcast's
 * first list page and each object's first fan-out page enqueued, at most eight statements whatever
 * the batch size. A job done twice inserts no run twice (runs are unique per execution and recipient)
 * and enqueues nothing twice (derived job ids).
 */
export async function startExecutions(
  trx: Trx,
  queue: Queue,
  executionIds: string[],
  /**
   * What becomes of the runs inserted: by default each gets a run job; `stepNew` steps them here
   * instead (src/engine/engine.ts) and returns those that still need one. It is given the runs as
   * inserted, with their executions as read here: no other transaction sees them before this one
   * commits, so they need no second read and no lock.
   */
  stepNew?: (runs: LockedRun[]) => Promise<string[]>,
) {
  const executions = (await findExecutions(trx, [...new Set(executionIds)]))
    .filter((e) => e.status !== 'cancelled')
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  if (executions.length === 0) return;
  const runs = executions.flatMap((e) =>
    e.recipients.map((r) => ({
      ...(r.kind === 'user' ? userRun(r, null) : objectRun(r.objectType, r.objectId, null)),
      execution_id: e.id,
      workspace_id: e.workspace_id,
    })),
  );
  const inserted = await insertRunsOf(trx, runs);
  const executionOf = new Map(executions.map((e) => [e.id, e]));
  const needJobs =
    stepNew && inserted.length <= MAX_STEPPED_AT_START
      ? await stepNew(inserted.map((run) => withExecution(run, executionOf.get(run.execution_id)!)))
      : inserted.map((run) => run.id);
  await queue.sendMany(trx, QUEUES.run, runJobs(needJobs.map((id) => ({ id }))));

  const broadcasts = executions.filter((e) => e.list_id !== null);
  const lists =
    broadcasts.length > 0
      ? await findListIdsOf(
          trx,
          broadcasts.map((e) => ({ workspaceId: e.workspace_id, listId: e.list_id! })),
        )
      : [];
  const listOf = new Map(lists.map((l) => [`${l.workspace_id}\u0000${l.list_id}`, l.id]));
  // A list deleted since the broadcast was accepted has no members left to notify.
  await queue.sendMany(
    trx,
    QUEUES.listFanout,
    broadcasts.flatMap((e) => {
      const listPk = listOf.get(`${e.workspace_id}\u0000${e.list_id}`);
      return listPk === undefined
        ? []
        : [
            {
              data: { executionId: e.id, workspaceId: e.workspace_id, listPk, after: 0 } satisfies ListFanoutJob,
              options: { id: jobId('list-fanout', e.id, listPk, 0) },
            },
          ];
    }),
  );

  const named = executions
    .filter((e) => e.list_id === null)
    .flatMap((e) =>
      e.recipients.flatMap((r) =>
        r.kind === 'object' ? [{ execution: e, objectType: r.objectType, objectId: r.objectId }] : [],
      ),
    );
  if (named.length > 0) await startFanOuts(trx, queue, named);
  // Last: the workflow rows stay locked until the commit, and trigger batches of one workflow queue on them.
  await markWorkflowsExecuted(
    trx,
    executions.flatMap((e) => (e.workflow_id === null ? [] : [{ workflowId: e.workflow_id, at: e.created_at }])),
  );
}

/** A run just inserted, with its execution's columns, as `lockRun` reads it. */
const withExecution = (run: InsertedRun, e: Awaited<ReturnType<typeof findExecutions>>[number]): LockedRun => ({
  ...run,
  workflow_id: e.workflow_id,
  workflow_slug: e.workflow_slug,
  version_no: e.version_no,
  category: e.category,
  tree: e.tree,
  data: e.data,
  actor: e.actor,
  tenant_id: e.tenant_id,
  idempotency_key: e.idempotency_key,
  execution_status: e.status,
  parent_run_id: e.parent_run_id,
  invoke_depth: e.invoke_depth,
});

/** Each named object's first fan-out page. */
async function startFanOuts(
  trx: Trx,
  queue: Queue,
  named: { execution: { id: string; workspace_id: number }; objectType: string; objectId: string }[],
) {
  const objects = await findObjectsOf(
    trx,
    named.map(({ execution, objectType, objectId }) => ({ workspaceId: execution.workspace_id, objectType, objectId })),
  );
  const objectOf = new Map(
    objects.map((o) => [`${o.workspace_id}\u0000${objectKey(o.object_type, o.object_id)}`, o.id]),
  );
  const jobs = new Map<string, { data: FanoutJob; options: { id: string } }>();
  for (const { execution, objectType, objectId } of named) {
    const id = objectOf.get(`${execution.workspace_id}\u0000${objectKey(objectType, objectId)}`);
    if (id === undefined) continue;
    const job = jobId('fanout', execution.id, id, 0);
    jobs.set(job, {
      data: { executionId: execution.id, workspaceId: execution.workspace_id, objectId: id, depth: 1, after: 0 },
      options: { id: job },
    });
  }
  await queue.sendMany(trx, QUEUES.fanout, [...jobs.values()]);
}

/**
 * One page of an object's subscribers: their runs, the expansion of child objects one level down
 * (never an object already expanded in this execution), and the next page. Six statements whatever
 * the page size.
 */
export async function fanOutPage(trx: Trx, queue: Queue, job: FanoutJob, pageSize: number) {
  const execution = await findExecutionStatus(trx, job.executionId);
  if (!execution || execution.status === 'cancelled') return;
  const page = await findSubscriberPage(trx, job.objectId, job.after, pageSize);
  if (page.length === 0) return;
  const runs: NewRun[] = [];
  const childIds = new Map<string, number>();
  for (const row of page) {
    if (row.distinct_id !== null)
      runs.push(userRun({ kind: 'user', distinctId: row.distinct_id, transient: false }, row.properties));
    else if (row.child_id !== null && job.depth < MAX_OBJECT_DEPTH) {
      runs.push(objectRun(row.child_type!, row.child_object_id!, row.properties));
      childIds.set(objectKey(row.child_type!, row.child_object_id!), row.child_id);
    }
  }
  const inserted = await insertRuns(trx, job.workspaceId, job.executionId, runs);
  await sendRunBatches(trx, queue, inserted);
  const expand = inserted.flatMap((run) =>
    run.recipient_type === 'object' ? [childIds.get(objectKey(run.object_type!, run.object_id!))!] : [],
  );
  const last = page[page.length - 1]!.id;
  const next: { data: FanoutJob; options: { id: string } }[] = expand.map((objectId) => ({
    data: { ...job, objectId, depth: job.depth + 1, after: 0 },
    options: { id: jobId('fanout', job.executionId, objectId, 0) },
  }));
  if (page.length === pageSize)
    next.push({ data: { ...job, after: last }, options: { id: jobId('fanout', job.executionId, job.objectId, last) } });
  await queue.sendMany(trx, QUEUES.fanout, next);
}

/**
 * One page of a broadcast's list members (its live members, in member id order): their runs and the
 * next page, five statements whatever the page size. A page done twice inserts no run twice (runs are
 * unique per execution and recipient) and enqueues nothing twice (derived job ids); a cancelled
 * broadcast stops at the next page.
 */
export async function listFanOutPage(trx: Trx, queue: Queue, job: ListFanoutJob, pageSize: number) {
  const execution = await findExecutionStatus(trx, job.executionId);
  if (!execution || execution.status === 'cancelled') return;
  const page = await findMemberPage(trx, job.listPk, job.after, pageSize);
  if (page.length === 0) return;
  const runs = page.map((row) => userRun({ kind: 'user', distinctId: row.distinct_id, transient: false }, null));
  const inserted = await insertRuns(trx, job.workspaceId, job.executionId, runs);
  await sendRunBatches(trx, queue, inserted);
  if (page.length < pageSize) return;
  const last = page[page.length - 1]!.id;
  await queue.send(trx, QUEUES.listFanout, { ...job, after: last } satisfies ListFanoutJob, {
    id: jobId('list-fanout', job.executionId, job.listPk, last),
  });
}
