import { describe, expect, it } from 'vitest';
import { buildTestApp, TEST_SECRET_KEY } from '../support/app.js';
import { recordFigures } from '../support/figures.js';
import { createPrivateDatabase } from '../support/private-database.js';
import { startWorkerProcess, type ServerProcess } from '../support/server-process.js';
import { engineWorkspace } from '../support/engine-drivers.js';
import { slowSmsWorkflow, smsMessage, startSlowSmsApi, until } from '../support/faults.js';
import { liveTemplate } from '../support/templates.js';

const DATABASE_URL = process.env.DATABASE_URL;

/**
 * Worker processes on PostgreSQL with the queue settings users get (no QUEUE_* variable set): a worker killed in
 * the middle of a provider call has its job resumed by another worker within 30 s (its heartbeat stops; the job
 * expiry is 300 s), while a live worker's 60 s provider call is never taken over (its heartbeat goes on).
 */
describe.runIf(DATABASE_URL)('a lost worker, with default queue settings', { timeout: 240_000 }, () => {
  async function setUp(delays: number[], timeoutMs: number) {
    const database = await createPrivateDatabase();
    const sms = await startSlowSmsApi(delays);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: database.url,
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'info',
      OUTBOUND_ALLOW_PRIVATE: 'true',
    };
    for (const name of Object.keys(env)) if (name.startsWith('QUEUE_')) delete env[name];
    const workers: ServerProcess[] = [await startWorkerProcess(env)];
    const app = await buildTestApp({ DATABASE_URL: database.url! }, { engine: { worker: false, schema: 'pgboss' } });
    const t = () => app;
    const ws = await engineWorkspace(t);
    await liveTemplate(t, ws, 'note', ['sms']);
    const send = await slowSmsWorkflow(t, ws, sms.url, timeoutMs);
    const tearDown = async () => {
      for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
      await Promise.all(workers.map((w) => w.exited));
      await app.close();
      await sms.close();
      await database.drop();
    };
    return { app, env, sms, workers, send, tearDown };
  }

  it('resumes a killed worker’s provider call on another worker within 30 s', async () => {
    // The first call is held (the worker dies during it); the next is answered at once.
    const { app, env, sms, workers, send, tearDown } = await setUp([55_000, 0], 60_000);
    try {
      const executionId = await send();
      await until(async () => sms.calls.length === 1, 60_000, 'the first call');
      // A second worker, idle, then the first killed in the middle of its call.
      workers.push(await startWorkerProcess(env));
      workers[0]!.child.kill('SIGKILL');
      await workers[0]!.exited;
      const killedAt = Date.now();
      await until(async () => sms.calls.length === 2, 60_000, 'the call made again by the other worker');
      const resumedMs = sms.calls[1]!.at - killedAt;
      await until(async () => (await smsMessage(app.db, executionId))?.status === 'sent_by_vendor', 30_000, 'sent');
      const message = (await smsMessage(app.db, executionId))!;
      expect(message.attempts).toHaveLength(1);
      expect(resumedMs).toBeLessThan(30_000);
      recordFigures('lost-worker', {
        'provider call of the killed worker': 'held 55 s',
        'seconds from SIGKILL to the call made by another worker': Math.round(resumedMs / 100) / 10,
      });
    } finally {
      await tearDown();
    }
  });

  it('never takes over a live worker’s 60 s provider call', async () => {
    const { app, env, sms, workers, send, tearDown } = await setUp([58_000], 60_000);
    try {
      // Another worker, idle, ready to take the job over if the first seemed lost.
      workers.push(await startWorkerProcess(env));
      const executionId = await send();
      await until(async () => sms.calls.length === 1, 60_000, 'the call');
      await until(async () => (await smsMessage(app.db, executionId))?.status === 'sent_by_vendor', 90_000, 'sent');
      const call = sms.calls[0]!;
      // The answer came after 58 s, on the one call: nobody called again meanwhile.
      expect(call.answered).toBe(true);
      expect(sms.calls).toHaveLength(1);
      const message = (await smsMessage(app.db, executionId))!;
      expect(message.attempts).toHaveLength(1);
      expect((message.attempts[0] as { outcome: string }).outcome).toBe('sent');
      recordFigures('live-worker-long-call', {
        'provider call ms (vendor timeout_ms 60000)': call.closedAt! - call.at,
        'calls made': sms.calls.length,
      });
    } finally {
      await tearDown();
    }
  });
});
