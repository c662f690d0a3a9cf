import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { testRenderer } from '../support/engine.js';
import { DEFAULT_OUTBOUND } from '../../src/channels/outbound.js';
import { advanceRun } from '../../src/engine/runner.js';
import {
  engineWorkspace,
  inbox,
  liveWorkflow,
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';
import { makeRunJobsDue, runOf, testClock } from '../support/flow.js';

/**
 * A resume job that arrives before its run is due (the worker's clock behind the one that scheduled
 * it) is scheduled again for the due time, never dropped (docs/engine.md, "Early resume jobs").
 */
describe('a resume job that arrives early', () => {
  const clock = testClock();
  const t = useTestApp({}, { engine: { engine: { now: clock.now } } });

  const runJobs = async (runId: string) => {
    const schema = t().engineRuntime!.schema;
    const { rows } = await sql<{ id: string; state: string; start_after: Date; data: { due?: number } }>`
      select id, state, start_after, data from ${sql.id(schema, 'job')}
      where name = 'herald-run' and data->>'runId' = ${runId} order by created_on`.execute(t().db);
    return rows;
  };
  const waiting = (id: string) =>
    waitFor(async () => {
      const run = await runOf(t, id);
      return run?.status === 'waiting' ? run : undefined;
    });

  it('is scheduled again for the due time, once, and the run resumes then', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'later', [node('delay', { duration: '1h' }), inbox('after-delay')]);
    const id = (await trigger(t, ws, { workflow: 'later', recipients: ['er-a'] })).json().message_id;
    const run = await waiting(id);
    const due = run.resume_at!.getTime();
    const [scheduled] = await runJobs(run.id).then((jobs) => jobs.filter((j) => j.state === 'created'));
    expect(scheduled!.data.due).toBe(due);

    // The queue hands the job over an hour early, as a worker whose clock is behind would see it.
    expect(await makeRunJobsDue(t, run.id)).toBe(1);
    const successor = await waitFor(async () => {
      const jobs = await runJobs(run.id);
      const early = jobs.find((j) => j.id === scheduled!.id);
      const next = jobs.find((j) => j.state === 'created');
      return early?.state === 'completed' && next ? next : undefined;
    });
    expect(successor.start_after.getTime()).toBe(due);
    expect(successor.data.due).toBe(due);
    expect((await runOf(t, id))?.status).toBe('waiting');

    // Handled twice (at-least-once), the early job still leaves one successor; a job scheduled for
    // another wait (a stale duplicate) leaves none.
    const deps = {
      db: t().db,
      queue: t().engineRuntime!.queue,
      now: clock.now,
      httpTimeoutMs: 1000,
      outbound: DEFAULT_OUTBOUND,
      log: { error: () => undefined },
      render: testRenderer,
    };
    await advanceRun(deps, run.id, { id: scheduled!.id, due });
    await advanceRun(deps, run.id, { id: 'f1d5a0a4-0000-8000-8000-000000000001', due: due - 60_000 });
    expect((await runJobs(run.id)).filter((j) => j.state === 'created')).toHaveLength(1);

    try {
      clock.jumpTo(due);
      expect(await makeRunJobsDue(t, run.id)).toBe(1);
      const sent = await settledMessages(t, ws, id, 1);
      expect(sent.map((m) => m.status)).toEqual(['delivered']);
      expect((await runOf(t, id))?.status).toBe('completed');
    } finally {
      clock.reset();
    }
  });
});
