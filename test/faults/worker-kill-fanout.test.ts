import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildTestApp, TEST_SECRET_KEY } from '../support/app.js';
import { recordFigures } from '../support/figures.js';
import { createPrivateDatabase } from '../support/private-database.js';
import { startWorkerProcess, type ServerProcess } from '../support/server-process.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { engineWorkspace, liveWorkflow, node, trigger } from '../support/engine-drivers.js';
import { faultSize, messageCounts, subscribeUsers, until, webhookVendor } from '../support/faults.js';
import { liveTemplate } from '../support/templates.js';

const DATABASE_URL = process.env.DATABASE_URL;
const RECIPIENTS = faultSize(2000, 10_000);
const KILLS = 3;
const SECRET = 'whsec-kill-0123456789abcdef';
/**
 * Deliveries a worker holds at once: each provider channel has its own delivery queue (email and sms
 * here), each fetching batches of at most 20, 2 at a time (half the worker's 4 slots: `deliverySlots`).
 */
const DELIVERIES_IN_FLIGHT_PER_WORKER = 2 * 4 * 10;

/**
 * `kill -9` of worker processes at random moments of a fan-out (PostgreSQL: workers are separate
 * processes on one database). Each killed worker is replaced; the survivors and the replacements
 * finish. Every (run, step, channel) is recorded once, and reaches the sink: counted there by its
 * message_id, every one arrives, none is missing. A delivery the killed worker had sent but not yet
 * recorded is sent again (the provider call and its record cannot be one transaction); those
 * redeliveries carry the same message_id and idempotency-key, are counted, and are bounded by what a
 * worker holds; a receiver that keeps the keys it has handled processes each message once.
 */
describe.runIf(DATABASE_URL)('workers killed (SIGKILL) in the middle of a fan-out', () => {
  it(
    `${RECIPIENTS} recipients × 2 channels: every message once in the log and at the sink`,
    { timeout: 300_000 },
    async () => {
      const database = await createPrivateDatabase();
      const receiver = await startWebhookReceiver(SECRET);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATABASE_URL: database.url,
        SECRET_KEY: TEST_SECRET_KEY,
        LOG_LEVEL: 'info',
        ENGINE_FANOUT_PAGE_SIZE: '100',
      };
      // The queue as users get it: a killed worker's jobs come back once their heartbeat is stale.
      for (const name of Object.keys(env)) if (name.startsWith('QUEUE_')) delete env[name];
      // The first worker creates the queues before the API's queue handle exists.
      const workers: ServerProcess[] = [await startWorkerProcess(env)];
      workers.push(await startWorkerProcess(env));
      const app = await buildTestApp({ DATABASE_URL: database.url! }, { engine: { worker: false, schema: 'pgboss' } });
      const t = () => app;
      const kills: { at: number; sinkCount: number }[] = [];
      try {
        const ws = await engineWorkspace(t);
        await liveTemplate(t, ws, 'crowd', ['email', 'sms']);
        await webhookVendor(t, ws, 'email', receiver.url, SECRET);
        await webhookVendor(t, ws, 'sms', receiver.url, SECRET);
        await liveWorkflow(t, ws, 'crowd', [
          node('send_email', { template: 'crowd' }),
          node('send_sms', { template: 'crowd' }),
        ]);
        await subscribeUsers(t, ws, 'all', RECIPIENTS);

        const accepted = await trigger(t, ws, { workflow: 'crowd', recipients: [{ object_type: 'crowd', id: 'all' }] });
        expect(accepted.statusCode).toBe(202);
        const executionId = accepted.json().message_id as string;
        const began = Date.now();

        // Kill at random moments spread over the fan-out: after a random share of each quarter has arrived.
        for (let k = 0; k < KILLS; k++) {
          const target = Math.floor(((k + 0.3 + Math.random() * 0.6) / (KILLS + 1)) * RECIPIENTS * 2);
          await until(async () => receiver.received.length >= target, 90_000, `${target} deliveries`);
          const index = Math.floor(Math.random() * workers.length);
          const victim = workers[index]!;
          victim.child.kill('SIGKILL');
          await victim.exited;
          kills.push({ at: Date.now() - began, sinkCount: receiver.received.length });
          workers[index] = await startWorkerProcess(env);
        }

        const distinct = () => new Set(receiver.received.map((r) => r.body.message_id)).size;
        await until(
          async () => {
            const counts = await messageCounts(app.db, executionId);
            return counts.total === RECIPIENTS * 2 + 2 && counts.pending === 0 && distinct() === RECIPIENTS * 2;
          },
          180_000,
          'every message delivered',
        );
        const finishedMs = Date.now() - began;
        // Anything sent twice would have arrived by now.
        await new Promise((resolve) => setTimeout(resolve, 1500));

        const counts = await messageCounts(app.db, executionId);
        expect(counts.doubled).toBe(0);
        // The object itself is a recipient with neither email nor phone: one refusal per channel.
        expect(counts.byStatus).toEqual({ sent_by_vendor: RECIPIENTS * 2, not_to_be_triggered: 2 });
        const runs = await sql<{ status: string; n: number }>`
        select r.status, count(*)::int as n from workflow_runs r where r.execution_id = ${executionId} group by 1`.execute(
          app.db,
        );
        expect(Object.fromEntries(runs.rows.map((r) => [r.status, r.n]))).toEqual({ completed: RECIPIENTS + 1 });

        const sent = await sql<{ id: string }>`
        select id from messages where execution_id = ${executionId} and status = 'sent_by_vendor'`.execute(app.db);
        const atSink = new Map<string, number>();
        for (const r of receiver.received) atSink.set(r.body.message_id, (atSink.get(r.body.message_id) ?? 0) + 1);
        const lost = sent.rows.filter((row) => !atSink.has(row.id)).length;
        const unknown = [...atSink.keys()].filter((id) => !sent.rows.some((row) => row.id === id)).length;
        const redelivered = receiver.received.length - atSink.size;
        const pairs = new Set(receiver.received.map((r) => `${r.body.recipient.distinct_id}\u0000${r.body.channel}`));
        expect(lost).toBe(0);
        expect(unknown).toBe(0);
        expect(pairs.size).toBe(RECIPIENTS * 2);
        expect(receiver.received.every((r) => r.signatureValid)).toBe(true);
        expect(redelivered).toBeLessThanOrEqual(KILLS * DELIVERIES_IN_FLIGHT_PER_WORKER);
        // A redelivery carries the idempotency key of the first: a receiver that keeps the keys it has
        // handled (as docs/channels.md asks) processes every message exactly once.
        expect(receiver.received.every((r) => r.idempotencyKey === r.body.message_id)).toBe(true);
        const processedByKey = new Set(receiver.received.map((r) => r.idempotencyKey));
        expect(processedByKey.size).toBe(sent.rows.length);

        recordFigures('worker-kill-fanout', {
          recipients: RECIPIENTS,
          channels: 2,
          'workers killed (SIGKILL)': KILLS,
          'kills at sink counts': kills.map((k) => k.sinkCount).join(' / '),
          'messages recorded': counts.total,
          '(run, step, channel) recorded twice': counts.doubled,
          'message ids at the sink': atSink.size,
          'messages lost': lost,
          'redeliveries (same message_id again)': redelivered,
          'messages processed by a receiver keeping idempotency keys (each once)': processedByKey.size,
          'seconds from 202 to the last delivery': Math.round(finishedMs / 100) / 10,
        });
      } finally {
        for (const worker of workers) if (worker.child.exitCode === null) worker.child.kill('SIGKILL');
        await Promise.all(workers.map((w) => w.exited));
        await app.close();
        await receiver.close();
        await database.drop();
      }
    },
  );
});
