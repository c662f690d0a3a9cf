import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { QUEUES } from '../../src/engine/queue.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  messages,
  refuseRunSaves,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';

/**
 * A fan-out page's runs are stepped together by one run-batch job (docs/engine.md, "Recipients and
 * fan-out"). One run whose step fails must not fail its batch-mates' job (issue 25, point 5): they are
 * delivered at once, the job completes, and the failing run goes on as a run job of its own.
 */

describe('a run-batch job with one failing run', () => {
  const t = useTestApp({}, { engine: {} });

  it('delivers the batch-mates at once and exactly once; the failing run is retried alone, then delivered', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'page-news', [inbox('news')]);
    const mates = Array.from({ length: 6 }, (_, i) => `mate-${i}`);
    const call = baseCall(t, ws);
    await call('POST', '/v1/object/team/iso/', {});
    const subscribed = await call('POST', '/v1/object/team/iso/subscription/', {
      recipients: [mates[0], 'broken-mate', ...mates.slice(1)],
    });
    expect(subscribed.statusCode).toBe(200);
    // The database refuses this subscriber's step (its saved progress), in the batch and alone, until dropped.
    const lift = await refuseRunSaves(t, 'broken-mate');

    const accepted = await trigger(t, ws, { workflow: 'page-news', recipients: [{ object_type: 'team', id: 'iso' }] });
    expect(accepted.statusCode).toBe(202);
    const executionId = accepted.json().message_id as string;
    // The object's own message and the six batch-mates', within the first attempt (no retry delay).
    const settled = await settledMessages(t, ws, executionId, 7, 10_000);
    const delivered = settled.filter((m) => m.recipient.$type === 'user').map((m) => m.recipient.distinct_id);
    expect(delivered.sort()).toEqual(mates);
    for (const m of settled.filter((m) => m.recipient.$type === 'user')) expect(m.status).toBe('delivered');

    const broken = await t()
      .db.selectFrom('workflow_runs')
      .select(['id', 'status'])
      .where('execution_id', '=', executionId)
      .where('distinct_id', '=', 'broken-mate')
      .executeTakeFirstOrThrow();
    expect(broken.status).toBe('running');
    const schema = t().engineRuntime!.schema;
    // The batch job completes: it is not failed and retried whole for one run.
    const batchJob = await waitFor(async () => {
      const { rows } = await sql<{ state: string; retry_count: number }>`
        select state, retry_count from ${sql.table(`${schema}.job`)}
        where name = ${QUEUES.runBatch} and data->'runIds' ? ${broken.id}`.execute(t().db);
      return rows[0] && rows[0].state !== 'created' && rows[0].state !== 'active' ? rows[0] : undefined;
    }, 10_000);
    expect(batchJob).toEqual({ state: 'completed', retry_count: 0 });
    // The failing run has a run job of its own, retried by the queue as any run's.
    const ownJob = await waitFor(
      async () => {
        const { rows } = await sql<{ state: string; retry_count: number }>`
          select state, retry_count from ${sql.table(`${schema}.job`)}
          where name = ${QUEUES.run} and data->>'runId' = ${broken.id}`.execute(t().db);
        return rows.length === 1 && rows[0]!.retry_count > 0 ? rows[0] : undefined;
      },
      20_000,
      'the failing run’s own job retried',
    );
    expect(ownJob.state).not.toBe('completed');
    expect((await messages(t, ws, `?execution_id=${executionId}&limit=1000`)).meta.count).toBe(7);

    await lift();
    // Its own job, retried, now takes the step; nobody got anything twice.
    const all = await settledMessages(t, ws, executionId, 8, 30_000);
    const users = all.filter((m) => m.recipient.$type === 'user').map((m) => m.recipient.distinct_id as string);
    expect(users.sort()).toEqual(['broken-mate', ...mates].sort());
    expect(all.find((m) => m.recipient.distinct_id === 'broken-mate')?.status).toBe('delivered');
  });
});
