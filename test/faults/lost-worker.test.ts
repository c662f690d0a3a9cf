import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildTestApp, TEST_SECRET_KEY, type TestApp } from '../support/app.js';
import { recordFigures } from '../support/figures.js';
import { createPrivateDatabase } from '../support/private-database.js';
import { startWorkerProcess, type ServerProcess } from '../support/server-process.js';
import { configClient } from '../management/config-helpers.js';
import { engineWorkspace, liveWorkflow, node, trigger } from '../engine/helpers.js';
import { liveTemplate, until } from './engine-helpers.js';
import type { WorkspaceFixture } from '../support/fixtures.js';

const DATABASE_URL = process.env.DATABASE_URL;

/**
 * A Twilio-compatible Messages API on 127.0.0.1 that answers each call after the delay the test sets for it (201
 * with a message SID), and records when each call arrived and when its connection closed.
 */
async function startSlowSmsApi(delays: number[]) {
  const calls: { at: number; closedAt?: number; answered: boolean }[] = [];
  const server = http.createServer((request, response) => {
    const call: (typeof calls)[number] = { at: Date.now(), answered: false };
    const delay = delays[calls.length] ?? 0;
    calls.push(call);
    request.resume();
    response.on('close', () => (call.closedAt = Date.now()));
    setTimeout(() => {
      if (response.destroyed) return;
      call.answered = true;
      response.writeHead(201, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ sid: `SM${calls.indexOf(call)}`, status: 'queued' }));
    }, delay);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An SMS workflow through a Twilio vendor at `baseUrl` whose calls may take up to `timeoutMs`. */
async function smsWorkflow(t: () => TestApp, ws: WorkspaceFixture, baseUrl: string, timeoutMs: number) {
  await liveTemplate(t, ws, 'note', ['sms']);
  const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
    channel: 'sms',
    provider: 'twilio',
    nickname: 'slow sms',
    is_default: true,
    config: {
      account_sid: 'AC0123456789',
      auth_token: 'twilio-token-0123456789',
      from: '+15550000000',
      base_url: baseUrl,
      timeout_ms: timeoutMs,
    },
  });
  if (vendor.statusCode !== 201) throw new Error(`vendor: ${vendor.body}`);
  await liveWorkflow(t, ws, 'sms', [node('send_sms', { template: 'note' })]);
}

async function smsMessage(app: TestApp, executionId: string) {
  const { rows } = await sql<{ status: string; attempts: unknown[] }>`
    select status, attempts from messages where execution_id = ${executionId} and channel = 'sms'`.execute(app.db);
  return rows[0];
}

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
    await smsWorkflow(t, ws, sms.url, timeoutMs);
    const send = async () => {
      const accepted = await trigger(t, ws, {
        workflow: 'sms',
        recipients: [{ distinct_id: 'slow-user', $sms: ['+15551230000'] }],
      });
      expect(accepted.statusCode).toBe(202);
      return accepted.json().message_id as string;
    };
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
      await until(async () => (await smsMessage(app, executionId))?.status === 'sent_by_vendor', 30_000, 'sent');
      const message = (await smsMessage(app, executionId))!;
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
      await until(async () => (await smsMessage(app, executionId))?.status === 'sent_by_vendor', 90_000, 'sent');
      const call = sms.calls[0]!;
      // The answer came after 58 s, on the one call: nobody called again meanwhile.
      expect(call.answered).toBe(true);
      expect(sms.calls).toHaveLength(1);
      const message = (await smsMessage(app, executionId))!;
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
