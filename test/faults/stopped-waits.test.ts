import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordFigures } from '../support/figures.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { findCredentials } from '../support/secrets.js';
import {
  prepareHeraldProcesses,
  processCallers,
  request,
  startServer,
  startWorkerProcess,
  succeeded,
  type ServerProcess,
} from '../support/server-process.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { DEFINITION } from '../support/preferences.js';
import { until } from '../support/faults.js';

/** Longer than every wait below: nothing may fire while every process is down. */
const STOP_MS = 8000;
const WAIT = '5s';
const VENDOR_SECRET = 'whsec-stopped-0123456789-vendor';
const VENDOR_HEADER = 'Bearer vendor-api-key-0123456789abcdef';

/**
 * Every Herald process killed (SIGKILL) while runs wait in a delay, a batch window and a digest
 * period, each longer than nothing but shorter than the stop. When the processes come back, each
 * wait fires once: one message per delay run, one per batch and one per digest period, each
 * carrying every trigger that joined it. On PostgreSQL the API and the worker are separate
 * processes; embedded storage is one process, opened again on its folder. The processes' whole
 * output (at debug level) is then searched for the vendor's secrets and the workspace's keys.
 */
describe('every process stopped during delays, batch windows and digests', () => {
  let database: PrivateDatabase;
  let dataDir: string;
  const outputs: string[] = [];
  let secrets: string[] = [];
  beforeAll(async () => {
    database = await createPrivateDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'herald-stopped-'));
  });
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  });

  it('each wait fires once after the stop, with every trigger that joined it', { timeout: 120_000 }, async () => {
    const receiver = await startWebhookReceiver(VENDOR_SECRET);
    const herald = await prepareHeraldProcesses(database, {
      dataDir,
      slug: 'stopped',
      env: {
        LOG_LEVEL: 'debug',
        QUEUE_POLLING_INTERVAL_SECONDS: '0.5',
        QUEUE_JOB_EXPIRE_SECONDS: '3',
        QUEUE_SUPERVISE_SECONDS: '1',
      },
      postgres: { QUEUE_SCHEMA: 'pgboss' },
    });
    const env = herald.env;
    let processes: ServerProcess[] = [];
    const start = async () => {
      // PostgreSQL: the worker first (it creates the queues with the short expiry), then the API.
      const worker = database.url ? await startWorkerProcess(env) : undefined;
      const api = await startServer(database.url ? { ...env, HERALD_ROLE: 'api' } : env);
      processes = worker ? [worker, api] : [api];
      return api;
    };
    const killAll = async () => {
      for (const p of processes) p.child.kill('SIGKILL');
      await Promise.all(processes.map((p) => p.exited));
      for (const p of processes) outputs.push(p.output());
    };
    try {
      let api = await start();
      const credentials = herald.credentials(api);
      secrets = [
        VENDOR_SECRET,
        VENDOR_HEADER,
        credentials.workspace_secret,
        credentials.api_key,
        credentials.service_token,
      ];
      const callers = await processCallers(() => api.port, credentials);
      const call = callers.call;
      const management = (method: string, path: string, body?: unknown, version = 'v1') =>
        succeeded(`${method} ${path}`, callers.management(method, path, body, version));
      await management('POST', '/preference_category/?commit=true', DEFINITION);
      await management('POST', '/template/note/', { name: 'Note', enabled_channels: ['inbox', 'email'] }, 'v2');
      await management(
        'POST',
        '/template/note/channel/inbox/variant/default/',
        { locale: 'en', content: { header: 'Note', text: 'events={{$batched_events_count}}' } },
        'v2',
      );
      await management(
        'POST',
        '/template/note/channel/email/variant/default/',
        { locale: 'en', content: { subject: 'Note', html: '<p>Note</p>', text: 'Note' } },
        'v2',
      );
      await management('PATCH', '/template/note/commit/', {}, 'v2');
      // A vendor with a signing secret and an API key in its headers; its first answer is a 500.
      await management('POST', '/vendor/', {
        channel: 'email',
        provider: 'webhook',
        nickname: 'hook',
        is_default: true,
        config: { url: receiver.url, secret: VENDOR_SECRET, headers: { authorization: VENDOR_HEADER } },
      });
      receiver.plan('delayed-user', [{ status: 500 }]);
      const workflows: Record<string, unknown[]> = {
        'wait-delay': [
          { name: 'delay', node_type: 'delay', delay_type: 'fixed', duration: WAIT },
          { name: 'inbox', node_type: 'send_inbox', template: 'note' },
          { name: 'email', node_type: 'send_email', template: 'note' },
        ],
        'wait-batch': [
          { name: 'batch', node_type: 'batch', mode: 'accumulate_all', window_type: 'fixed', fixed_window: WAIT },
          { name: 'inbox', node_type: 'send_inbox', template: 'note' },
        ],
        // The period ends 5 s after the triggers (a schedule read from the data), during the stop.
        'wait-digest': [
          { name: 'digest', node_type: 'digest', schedule_type: 'dynamic', dynamic_schedule_expr: '.sched' },
          { name: 'inbox', node_type: 'send_inbox', template: 'note' },
        ],
      };
      for (const [slug, nodes] of Object.entries(workflows)) {
        await management('POST', `/workflow/${slug}/`, {
          name: slug,
          category: 'order-updates',
          trigger_type: 'api',
          tree: { nodes },
        });
        await management('PATCH', `/workflow/${slug}/commit/`);
      }
      await succeeded('user', call('POST', '/v1/user/delayed-user/', { $email: ['delayed@example.com'] }));
      // A request signed with the workspace key and secret (its secret must not reach any log line either).
      const date = new Date().toUTCString();
      const path = '/v1/user/delayed-user/';
      const signature = createHmac('sha256', credentials.workspace_secret)
        .update(['GET', '', '', date, path].join('\n'))
        .digest('base64');
      expect(
        (
          await request(api.port, {
            method: 'GET',
            path,
            headers: { authorization: `${credentials.workspace_key}:${signature}`, date },
          })
        ).status,
      ).toBe(200);

      const executions: Record<string, string[]> = { 'wait-delay': [], 'wait-batch': [], 'wait-digest': [] };
      const sched = { frequency: 'minutely', interval: 60, dtstart: new Date(Date.now() + 5000).toISOString() };
      for (const slug of Object.keys(executions))
        for (let i = 0; i < (slug === 'wait-delay' ? 1 : 3); i++) {
          const body = await succeeded(
            slug,
            call('POST', '/trigger/', { workflow: slug, recipients: ['delayed-user'], data: { i, sched } }),
          );
          executions[slug]!.push(body.message_id as string);
        }
      const triggeredAt = Date.now();
      // Every run has reached its wait (the trigger and first run steps are done) before the kill.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      await killAll();
      const stoppedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, STOP_MS - (Date.now() - triggeredAt) + 2500));
      expect(receiver.received).toHaveLength(0);
      const downMs = Date.now() - stoppedAt;
      api = await start();

      const messagesOf = async (ids: string[]) => {
        const all: { status: string; channel: string; content: { text?: string } }[] = [];
        for (const id of ids) {
          const page = (await call('GET', `/v1/message/?execution_id=${id}&limit=100`)).body as {
            results: typeof all;
          };
          all.push(...page.results);
        }
        return all;
      };
      const settled = (m: { status: string }) => !['to_be_triggered', 'triggered'].includes(m.status);
      await until(
        async () => {
          const delay = await messagesOf(executions['wait-delay']!);
          const batch = await messagesOf(executions['wait-batch']!);
          const digest = await messagesOf(executions['wait-digest']!);
          return delay.length === 2 && delay.every(settled) && batch.length === 1 && digest.length === 1;
        },
        45_000,
        'every wait to fire',
      );
      const firedAt = Date.now();
      // A wait that fired twice would show by now.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const delay = await messagesOf(executions['wait-delay']!);
      const batch = await messagesOf(executions['wait-batch']!);
      const digest = await messagesOf(executions['wait-digest']!);
      expect(delay.map((m) => `${m.channel}:${m.status}`).sort()).toEqual(['email:sent_by_vendor', 'inbox:delivered']);
      expect(batch).toMatchObject([{ status: 'delivered', content: { text: 'events=3' } }]);
      expect(digest).toMatchObject([{ status: 'delivered', content: { text: 'events=3' } }]);
      // The email: refused once (500), then delivered; each attempt signed.
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
      await killAll();
      recordFigures('stopped-waits', {
        'processes stopped': database.url ? 2 : 1,
        'ms every process was down': downMs,
        'ms from the restart to the last wait fired': firedAt - stoppedAt - downMs,
        'waits (delay, batch, digest)': 3,
        'triggers joined': 7,
        'messages after restart': delay.length + batch.length + digest.length,
        'waits fired twice': 0,
      });
    } finally {
      for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(processes.map((p) => p.exited));
      await receiver.close();
    }
  });

  it('no log line of any process carries a vendor secret, a vendor header, a signing secret or a key', () => {
    const lines = outputs.join('\n').split('\n');
    expect(lines.length).toBeGreaterThan(50);
    const leaked = secrets.flatMap((secret) =>
      lines.filter((line) => line.includes(secret)).map((l) => l.slice(0, 200)),
    );
    // Outside the first start's banner (credentials printed once, outside the JSON log stream).
    const jsonLines = lines.filter((line) => line.startsWith('{'));
    expect(leaked.filter((line) => line.startsWith('{'))).toEqual([]);
    expect(findCredentials(jsonLines)).toEqual([]);
    recordFigures('secrets-in-engine-logs', {
      'log lines searched': jsonLines.length,
      'secrets searched for': secrets.length,
      'secrets found': 0,
    });
  });
});
