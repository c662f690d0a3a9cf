import { applyUpsert } from '../domain/entity-operations.js';
import type { Db } from '../db/database.js';
import { newUlid } from '../ids.js';
import type { Recipient } from '../domain/trigger-records.js';
import { findExecution } from '../repositories/executions.js';
import { findObjects } from '../repositories/objects.js';
import { findSubscriberPage, insertRuns, type NewRun } from '../repositories/runs.js';
import { findMemberPage } from '../repositories/list-members.js';
import { findListIds } from '../repositories/subscriber-lists.js';
import { markWorkflowExecuted } from '../repositories/workflows.js';
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

function userRun(
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
async function sendRunBatches(trx: Db, queue: Queue, runs: { id: string }[]) {
  const jobs: { data: RunBatchJob; options: { id: string } }[] = [];
  for (let i = 0; i < runs.length; i += RUN_BATCH_SIZE) {
    const runIds = runs.slice(i, i + RUN_BATCH_SIZE).map((run) => run.id);
    jobs.push({ data: { runIds }, options: { id: jobId('run-batch', runIds[0]!, 'start') } });
  }
  await queue.sendMany(trx, QUEUES.runBatch, jobs);
}

/** The trigger job: one run per named recipient, and a fan-out job per object. */
export async function startExecution(trx: Db, queue: Queue, executionId: string) {
  const execution = await findExecution(trx, executionId);
  if (!execution || execution.status === 'cancelled') return;
  if (execution.workflow_id !== null) await markWorkflowExecuted(trx, execution.workflow_id, execution.created_at);
  const recipients = execution.recipients as Recipient[];
  const runs = recipients.map((r) =>
    r.kind === 'user' ? userRun(r, null) : objectRun(r.objectType, r.objectId, null),
  );
  const inserted = await insertRuns(trx, execution.workspace_id, executionId, runs);
  await queue.sendMany(trx, QUEUES.run, runJobs(inserted));
  if (execution.list_id !== null) {
    const [list] = await findListIds(trx, execution.workspace_id, [execution.list_id]);
    // A list deleted since the broadcast was accepted has no members left to notify.
    if (list)
      await queue.send(
        trx,
        QUEUES.listFanout,
        { executionId, workspaceId: execution.workspace_id, listPk: list.id, after: 0 } satisfies ListFanoutJob,
        { id: jobId('list-fanout', executionId, list.id, 0) },
      );
    return;
  }
  const objectRefs = recipients.flatMap((r) =>
    r.kind === 'object' ? [{ objectType: r.objectType, objectId: r.objectId }] : [],
  );
  if (objectRefs.length === 0) return;
  const objects = await findObjects(trx, execution.workspace_id, objectRefs);
  await queue.sendMany(
    trx,
    QUEUES.fanout,
    objects.map((o) => ({
      data: {
        executionId,
        workspaceId: execution.workspace_id,
        objectId: o.id,
        depth: 1,
        after: 0,
      } satisfies FanoutJob,
      options: { id: jobId('fanout', executionId, o.id, 0) },
    })),
  );
}

/**
 * One page of an object's subscribers: their runs, the expansion of child objects one level down
 * (never an object already expanded in this execution), and the next page. Six statements whatever
 * the page size.
 */
export async function fanOutPage(trx: Db, queue: Queue, job: FanoutJob, pageSize: number) {
  const execution = await trx
    .selectFrom('executions')
    .select('status')
    .where('id', '=', job.executionId)
    .executeTakeFirst();
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
export async function listFanOutPage(trx: Db, queue: Queue, job: ListFanoutJob, pageSize: number) {
  const execution = await trx
    .selectFrom('executions')
    .select('status')
    .where('id', '=', job.executionId)
    .executeTakeFirst();
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
