import { sql, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp, type TestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { startExecutions } from '../../src/engine/recipients.js';
import { stepNewRuns } from '../../src/engine/runner.js';
import { DEFAULT_OUTBOUND } from '../../src/channels/outbound.js';
import { testRenderer } from '../support/engine.js';
import { jobId } from '../../src/engine/job-ids.js';
import { QUEUES } from '../../src/engine/queue.js';
import { groupTriggerJobs, triggerJob } from '../../src/engine/trigger-jobs.js';
import { insertExecutions, type NewExecution } from '../../src/repositories/executions.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  messages,
  newExecution,
  refuseRunSaves,
  settledMessages,
  triggerJobsOf,
  waitFor,
} from '../support/engine-drivers.js';

/**
 * Trigger jobs are started in batches (docs/engine.md, "Batched trigger jobs"): a fetched batch in one
 * transaction, a fixed number of statements whatever its size; a batch that fails is started again job
 * by job, so only the bad job is retried. A job starts a group of executions (src/engine/trigger-jobs.ts);
 * a group that fails is started execution by execution, and only the bad execution goes on as a job of
 * its own. Jobs of the older shape (one execution, `data.executionId`) are still started.
 */

async function workflowId(t: () => TestApp, ws: WorkspaceFixture, slug: string) {
  const row = await t()
    .db.selectFrom('workflows')
    .select(['id', 'last_executed_at'])
    .where('workspace_id', '=', ws.workspaceId)
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();
  return row;
}

const execution = (workflow: number, slug: string, recipients: unknown[], at?: string): NewExecution =>
  // Rows written as the intake writes them, or (a test of a broken row) as it never would.
  newExecution({
    workflow_id: workflow,
    workflow_slug: slug,
    data: { at },
    recipients: recipients as NewExecution['recipients'],
  });

const broadcastExecution = (listId: string): NewExecution =>
  newExecution({
    tree: { nodes: [{ name: 'b', node_type: 'send_multi_channel', template: 't', channels: ['inbox'] }] },
    workflow_slug: `broadcast:${listId}`,
    version_no: 0,
    source: 'broadcast',
    list_id: listId,
  });

const user = (distinctId: string) => ({ kind: 'user', distinctId, transient: false });

describe('batched trigger jobs', () => {
  const t = useTestApp({}, { engine: {} });

  it('starts a batch of triggers with a fixed number of statements whatever its size; a batch done twice makes nothing twice', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'batched', [inbox()]);
    const call = baseCall(t, ws);
    await call('POST', '/v1/object/crew/c1/', {});
    await call('POST', '/v1/object/crew/c1/subscription/', { recipients: ['crew-member'] });
    await call('POST', '/v1/subscriber_list/', { list_id: 'readers' });
    await call('POST', '/v1/subscriber_list/readers/subscriber/add/', { distinct_ids: ['reader'] });
    const workflow = await workflowId(t, ws, 'batched');
    expect(workflow.last_executed_at).toBeNull();
    const queue = t().engineRuntime!.queue;
    const counts: number[] = [];
    for (const size of [3, 40]) {
      // Executions written without their trigger jobs: only the batch started by hand below touches them.
      const batch = [
        ...Array.from({ length: size }, (_, i) => execution(workflow.id, 'batched', [user(`b${size}-${i}`)])),
        execution(workflow.id, 'batched', [{ kind: 'object', objectType: 'crew', objectId: 'c1' }, user('named')]),
        broadcastExecution('readers'),
      ];
      await insertExecutions(t().db, ws.workspaceId, batch);
      // Counted on the transaction's own handle: the worker running beside it shares the database.
      let statements = 0;
      const counting: KyselyPlugin = {
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          statements += 1;
          return args.result;
        },
      };
      await t()
        .db.transaction()
        .execute((trx) =>
          startExecutions(
            trx.withPlugin(counting),
            queue,
            batch.map((e) => e.id),
          ),
        );
      // With BEGIN and COMMIT.
      counts.push(statements + 2);
      // Started again (a batch whose completion was lost): every run exists, nothing is enqueued twice.
      await t()
        .db.transaction()
        .execute((trx) =>
          startExecutions(
            trx,
            queue,
            batch.map((e) => e.id),
          ),
        );
      for (const e of batch.slice(0, size)) expect((await settledMessages(t, ws, e.id, 1)).length).toBe(1);
      const withObject = batch[size]!;
      const settled = await settledMessages(t, ws, withObject.id, 3);
      expect(settled.map((m) => m.recipient.distinct_id ?? m.recipient.id).sort()).toEqual([
        'c1',
        'crew-member',
        'named',
      ]);
      await settledMessages(t, ws, batch[size + 1]!.id, 1);
      const runs = await t()
        .db.selectFrom('workflow_runs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(
          'execution_id',
          'in',
          batch.map((e) => e.id),
        )
        .executeTakeFirstOrThrow();
      expect(Number(runs.n)).toBe(size + 4);
    }
    expect(counts[0]).toBe(counts[1]);
    // Eight statements, with BEGIN and COMMIT.
    expect(counts[0]).toBeLessThanOrEqual(10);
    // The workflow's trigger marker moved to its latest execution's time.
    const latest = await t()
      .db.selectFrom('executions')
      .select((eb) => eb.fn.max('created_at').as('at'))
      .where('workflow_id', '=', workflow.id)
      .executeTakeFirstOrThrow();
    expect((await workflowId(t, ws, 'batched')).last_executed_at).toEqual(latest.at);
  });

  it('a bad trigger job of the older shape (one execution each) in a batch is retried alone: the others start and run', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'mixed', [inbox()]);
    const workflow = await workflowId(t, ws, 'mixed');
    const good = Array.from({ length: 6 }, (_, i) => execution(workflow.id, 'mixed', [user(`g-${i}`)]));
    // Recipients that are not a list: this job's start throws, whichever way it is started.
    const bad = {
      ...execution(workflow.id, 'mixed', []),
      recipients: { not: 'a list' } as unknown as NewExecution['recipients'],
    };
    const all = [good[0]!, good[1]!, good[2]!, bad, good[3]!, good[4]!, good[5]!];
    const queue = t().engineRuntime!.queue;
    // Committed together, so the worker fetches them as one batch.
    await t()
      .db.transaction()
      .execute(async (trx) => {
        await insertExecutions(trx, ws.workspaceId, all);
        await queue.sendMany(
          trx,
          QUEUES.trigger,
          all.map((e) => ({ data: { executionId: e.id }, options: { id: jobId('trigger', e.id) } })),
        );
      });
    for (const e of good) await settledMessages(t, ws, e.id, 1);
    const schema = t().engineRuntime!.schema;
    const states = await waitFor(async () => {
      const { rows } = await sql<{ id: string; state: string; retry_count: number }>`
        select id::text, state, retry_count from ${sql.table(`${schema}.job`)}
        where name = ${QUEUES.trigger} and id = any(${all.map((e) => jobId('trigger', e.id))}::uuid[])`.execute(t().db);
      const badJob = rows.find((row) => row.id === jobId('trigger', bad.id));
      return badJob && badJob.retry_count > 0 ? rows : undefined;
    }, 10_000);
    for (const e of good)
      expect(states.find((row) => row.id === jobId('trigger', e.id))).toMatchObject({
        state: 'completed',
        retry_count: 0,
      });
    expect((await messages(t, ws, `?execution_id=${bad.id}`)).meta.count).toBe(0);
  });

  it('a trigger’s runs take their first step in the trigger job’s transaction: no run job; started twice, nothing twice', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'direct', [inbox()]);
    const accepted = await baseCall(t, ws)('POST', '/trigger/', { workflow: 'direct', recipients: ['solo'] });
    expect(accepted.statusCode).toBe(202);
    const executionId = accepted.json().message_id as string;
    await settledMessages(t, ws, executionId, 1);
    const run = await t()
      .db.selectFrom('workflow_runs')
      .select(['id', 'status'])
      .where('execution_id', '=', executionId)
      .executeTakeFirstOrThrow();
    expect(run.status).toBe('completed');
    const schema = t().engineRuntime!.schema;
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(`${schema}.job`)} where name = ${QUEUES.run}
      and id = ${jobId('run', run.id, 'start')}::uuid`.execute(t().db);
    expect(rows[0]!.n).toBe(0);

    // The trigger job done again (its completion lost): the run exists, so nothing is stepped or sent again.
    const workflow = await workflowId(t, ws, 'direct');
    const again = execution(workflow.id, 'direct', [user('twice')]);
    await insertExecutions(t().db, ws.workspaceId, [again]);
    const deps = {
      db: t().db,
      queue: t().engineRuntime!.queue,
      now: Date.now,
      httpTimeoutMs: 1000,
      outbound: DEFAULT_OUTBOUND,
      log: { error: () => {} },
      render: testRenderer,
    };
    for (let i = 0; i < 2; i += 1)
      await t()
        .db.transaction()
        .execute((trx) => startExecutions(trx, deps.queue, [again.id], (ids) => stepNewRuns(deps, trx, ids)));
    const settled = await settledMessages(t, ws, again.id, 1);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ status: 'delivered' });
  });

  it('a first step that fails rolls its batch back; the group is then started without stepping and the others run', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'steady', [inbox()]);
    const workflow = await workflowId(t, ws, 'steady');
    const good = Array.from({ length: 4 }, (_, i) => execution(workflow.id, 'steady', [user(`s-${i}`)]));
    // The database refuses this run's step (its saved position), in the batch and in its run job.
    const broken = execution(workflow.id, 'steady', [user('broken-step')]);
    const lift = await refuseRunSaves(t, 'broken-step');
    const all = [good[0]!, broken, ...good.slice(1)];
    const queue = t().engineRuntime!.queue;
    // One job for the five, as the intake writes them.
    const jobs = groupTriggerJobs(all.map((e) => triggerJob(ws.workspaceId, e.id)));
    expect(jobs).toHaveLength(1);
    await t()
      .db.transaction()
      .execute(async (trx) => {
        await insertExecutions(trx, ws.workspaceId, all);
        await queue.sendMany(trx, QUEUES.trigger, jobs);
      });
    for (const e of good) await settledMessages(t, ws, e.id, 1);
    const run = await waitFor(
      () =>
        t()
          .db.selectFrom('workflow_runs')
          .select(['id', 'status'])
          .where('execution_id', '=', broken.id)
          .executeTakeFirst(),
      10_000,
      'the broken trigger’s run',
    );
    expect(run.status).toBe('running');
    expect((await messages(t, ws, `?execution_id=${broken.id}`)).meta.count).toBe(0);
    await lift();
    // Its run job, retried, now takes the step.
    expect(await settledMessages(t, ws, broken.id, 1, 20_000)).toHaveLength(1);
    // The group job itself completed at its first try, and nothing was made twice.
    expect(await triggerJobsOf(t(), [good[0]!.id])).toEqual([
      expect.objectContaining({ id: jobs[0]!.options.id, state: 'completed', retry_count: 0, executions: 5 }),
    ]);
    for (const e of good) expect(await settledMessages(t, ws, e.id, 1)).toHaveLength(1);
  });

  it('a bad execution in a group job: its group-mates start once, it goes on as a job of its own, the group completes', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'grouped', [inbox()]);
    const workflow = await workflowId(t, ws, 'grouped');
    const good = Array.from({ length: 6 }, (_, i) => execution(workflow.id, 'grouped', [user(`gg-${i}`)]));
    // Recipients that are not a list: this execution's start throws, in a group or alone.
    const bad = {
      ...execution(workflow.id, 'grouped', []),
      recipients: { not: 'a list' } as unknown as NewExecution['recipients'],
    };
    // Two group jobs committed together, fetched as one batch: the batch fails, then each job goes alone.
    const withBad = groupTriggerJobs([good[0]!, bad, good[1]!, good[2]!].map((e) => triggerJob(ws.workspaceId, e.id)));
    const clean = groupTriggerJobs(good.slice(3).map((e) => triggerJob(ws.workspaceId, e.id)));
    const queue = t().engineRuntime!.queue;
    await t()
      .db.transaction()
      .execute(async (trx) => {
        await insertExecutions(trx, ws.workspaceId, [...good, bad]);
        await queue.sendMany(trx, QUEUES.trigger, [...withBad, ...clean]);
      });
    for (const e of good) await settledMessages(t, ws, e.id, 1);
    const groupId = withBad[0]!.options.id!;
    const jobs = await waitFor(async () => {
      const rows = await triggerJobsOf(t(), [bad.id, good[0]!.id, good[3]!.id]);
      const alone = rows.find((row) => row.id === jobId('trigger-alone', bad.id, groupId));
      return alone && alone.retry_count > 0 ? rows : undefined;
    }, 15_000);
    // Both groups completed at their first try; the bad execution's own job is the one retried.
    const job = (id: string, executionId: string) =>
      jobs.find((row) => row.id === id && row.execution_id === executionId);
    expect(job(groupId, bad.id)).toMatchObject({ state: 'completed', retry_count: 0, executions: 4 });
    expect(job(groupId, good[0]!.id)).toMatchObject({ state: 'completed', retry_count: 0 });
    expect(job(clean[0]!.options.id!, good[3]!.id)).toMatchObject({
      state: 'completed',
      retry_count: 0,
      executions: 3,
    });
    expect(jobs.find((row) => row.id === jobId('trigger-alone', bad.id, groupId))).toMatchObject({ executions: 1 });
    // Nothing twice: one run and one message per good execution.
    const runs = await t()
      .db.selectFrom('workflow_runs')
      .select('execution_id')
      .where(
        'execution_id',
        'in',
        good.map((e) => e.id),
      )
      .execute();
    expect(runs).toHaveLength(good.length);
    for (const e of good) expect(await settledMessages(t, ws, e.id, 1)).toHaveLength(1);
    expect((await messages(t, ws, `?execution_id=${bad.id}`)).meta.count).toBe(0);
  });
});
