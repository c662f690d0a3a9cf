import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDatabase } from '../../src/db/database.js';
import { buildTestApp } from '../support/app.js';
import { recordFigures } from '../support/figures.js';
import { createPrivateDatabase } from '../support/private-database.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { engineWorkspace, inbox, liveWorkflow, node, trigger } from '../support/engine-drivers.js';
import { faultSize, messageCounts, subscribeUsers, until, webhookVendor } from '../support/faults.js';

const DATABASE_URL = process.env.DATABASE_URL;
const RECIPIENTS = faultSize(2000, 10_000);
const OUTAGE_MS = 10_000;
const SECRET = 'whsec-outage-0123456789abcdef';
/** The queue as users get it: no QUEUE_* variable set (a job expires after 300 s; its heartbeat is 10 s). */
const DEFAULTS = loadConfig({});

/**
 * PostgreSQL gone (every connection reset, new ones refused) for 10 s in the middle of a fan-out to
 * the inbox and, through the webhook provider, email, with the API and the worker reaching it
 * through a proxy and the queue settings users get. Triggers sent during the outage are refused
 * (503) or accepted; when the database is back, every job that was running at the cut completes
 * within 30 s, the fan-out and every accepted trigger complete: each recipient has its one message
 * per channel, none twice, and no provider call is made twice (a worker holding a provider's answer
 * it could not save saves it once the database is back).
 */
describe.runIf(DATABASE_URL)('PostgreSQL outage during a fan-out', () => {
  it(
    `${RECIPIENTS} recipients: the run completes after the outage; nothing acknowledged is lost`,
    { timeout: 240_000 },
    async () => {
      const database = await createPrivateDatabase();
      const receiver = await startWebhookReceiver(SECRET);
      const direct = createDatabase({ url: database.url }).db;
      const proxy = await TcpProxy.start({
        host: new URL(DATABASE_URL!).hostname,
        port: Number(new URL(DATABASE_URL!).port || 5432),
      });
      const app = await buildTestApp(
        {
          DATABASE_URL: proxy.urlFor(database.url!),
          DATABASE_TIMEOUT_MS: '1000',
          DATABASE_STATEMENT_TIMEOUT_MS: '5000',
        },
        {
          engine: {
            queue: {
              jobExpireSeconds: DEFAULTS.QUEUE_JOB_EXPIRE_SECONDS,
              heartbeatSeconds: DEFAULTS.QUEUE_HEARTBEAT_SECONDS,
              superviseSeconds: DEFAULTS.QUEUE_SUPERVISE_SECONDS,
              pollingIntervalSeconds: DEFAULTS.QUEUE_POLLING_INTERVAL_SECONDS,
            },
            // Provider calls bounded by the vendor's timeout_ms (10 s), as users get it, not the tests' 1 s.
            engine: { fanoutPageSize: 100, deliveryTimeoutMs: undefined },
          },
        },
      );
      const t = () => app;
      const schema = app.engineRuntime!.schema;
      try {
        const ws = await engineWorkspace(t);
        await webhookVendor(t, ws, 'email', receiver.url, SECRET);
        await liveWorkflow(t, ws, 'crowd', [inbox(), node('send_email', { template: 'welcome' })]);
        await subscribeUsers(t, ws, 'all', RECIPIENTS);
        const accepted = await trigger(t, ws, { workflow: 'crowd', recipients: [{ object_type: 'crowd', id: 'all' }] });
        expect(accepted.statusCode).toBe(202);
        const executionId = accepted.json().message_id as string;
        const began = Date.now();
        await until(
          async () => (await messageCounts(direct, executionId)).total >= RECIPIENTS / 5,
          60_000,
          'a fifth of the fan-out',
        );
        const before = (await messageCounts(direct, executionId)).total;

        const running = await sql<{ id: string }>`
          select id from ${sql.id(schema, 'job')} where state = 'active'`.execute(direct);
        const metTheOutage = running.rows.map((row) => row.id);
        proxy.cut('reset');
        const during: { status: number; executionId?: string }[] = [];
        const outageEnds = Date.now() + OUTAGE_MS;
        for (let i = 0; Date.now() < outageEnds; i++) {
          const response = await trigger(t, ws, { workflow: 'crowd', recipients: [`late-${i}`] });
          during.push({
            status: response.statusCode,
            ...(response.statusCode === 202 ? { executionId: response.json().message_id } : {}),
          });
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const whileDown = (await messageCounts(direct, executionId)).total;
        proxy.restore();
        const restoredAt = Date.now();

        // Every job running at the cut completes, however long the queue's expiry.
        await until(
          async () => {
            const left = await sql<{ n: number }>`
              select count(*)::int as n from ${sql.id(schema, 'job')}
              where id = any(${metTheOutage}::uuid[]) and state <> 'completed'`.execute(direct);
            return left.rows[0]!.n === 0;
          },
          90_000,
          'the jobs running at the cut to complete',
        );
        const jobsBackMs = Date.now() - restoredAt;
        await until(
          async () => {
            const counts = await messageCounts(direct, executionId);
            return counts.total === 2 * RECIPIENTS + 2 && counts.pending === 0;
          },
          120_000,
          'the fan-out to complete',
        );
        const completedMs = Date.now() - restoredAt;
        const acknowledged = during.filter((d) => d.status === 202);
        for (const { executionId: id } of acknowledged)
          await until(async () => (await messageCounts(direct, id!)).byStatus.delivered === 1, 30_000, `trigger ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 1500));

        const counts = await messageCounts(direct, executionId);
        expect(counts.doubled).toBe(0);
        // The object itself is a recipient too, with no inbox and no email: one refusal per channel.
        expect(counts.byStatus).toEqual({ delivered: RECIPIENTS, sent_by_vendor: RECIPIENTS, not_to_be_triggered: 2 });
        expect(jobsBackMs).toBeLessThan(30_000);
        // Every email reached the receiver once: no provider call was made again after the outage.
        const atSink = new Set(receiver.received.map((r) => r.body.message_id));
        const redelivered = receiver.received.length - atSink.size;
        expect(atSink.size).toBe(RECIPIENTS);
        expect(redelivered).toBe(0);
        const runs = await sql<{ n: number }>`
        select count(*)::int as n from workflow_runs where execution_id = ${executionId} and status = 'completed'`.execute(
          direct,
        );
        expect(runs.rows[0]!.n).toBe(RECIPIENTS + 1);
        expect(during.every((d) => d.status === 202 || d.status === 503)).toBe(true);
        for (const { executionId: id } of acknowledged)
          expect((await messageCounts(direct, id!)).byStatus).toEqual({ delivered: 1, not_to_be_triggered: 1 });

        recordFigures('outage-fanout', {
          recipients: RECIPIENTS,
          'outage ms': OUTAGE_MS,
          'messages before the cut': before,
          'messages while down': whileDown,
          'triggers during the outage': during.length,
          'answered 503': during.filter((d) => d.status === 503).length,
          'acknowledged (202) during the outage': acknowledged.length,
          'acknowledged and completed': acknowledged.length,
          'jobs running at the cut': metTheOutage.length,
          'seconds from restore until every job running at the cut completed': Math.round(jobsBackMs / 100) / 10,
          'emails at the receiver': receiver.received.length,
          'provider calls made twice': redelivered,
          'seconds from restore to the last message': Math.round(completedMs / 100) / 10,
          'seconds in all': Math.round((Date.now() - began) / 100) / 10,
          '(run, step, channel) recorded twice': counts.doubled,
        });
      } finally {
        proxy.restore();
        await app.close();
        await proxy.close();
        await receiver.close();
        await direct.destroy();
        await database.drop();
      }
    },
  );
});
