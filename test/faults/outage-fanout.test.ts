import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { buildTestApp } from '../support/app.js';
import { recordFigures } from '../support/figures.js';
import { createPrivateDatabase } from '../support/private-database.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { engineWorkspace, inbox, liveWorkflow, trigger } from '../engine/helpers.js';
import { faultSize, messageCounts, subscribeUsers, until } from './engine-helpers.js';

const DATABASE_URL = process.env.DATABASE_URL;
const RECIPIENTS = faultSize(2000, 10_000);
const OUTAGE_MS = 4000;

/**
 * PostgreSQL gone (every connection reset, new ones refused) in the middle of a fan-out, with the
 * API and the worker reaching it through a proxy. Triggers sent during the outage are refused
 * (503) or accepted; when the database is back, the fan-out and every accepted trigger complete:
 * each recipient has its one message, none twice.
 */
describe.runIf(DATABASE_URL)('PostgreSQL outage during a fan-out', () => {
  it(
    `${RECIPIENTS} recipients: the run completes after the outage; nothing acknowledged is lost`,
    { timeout: 120_000 },
    async () => {
      const database = await createPrivateDatabase();
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
        { engine: { queue: { jobExpireSeconds: 3, superviseSeconds: 1 }, engine: { fanoutPageSize: 100 } } },
      );
      const t = () => app;
      try {
        const ws = await engineWorkspace(t);
        await liveWorkflow(t, ws, 'crowd', [inbox()]);
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

        await until(
          async () => {
            const counts = await messageCounts(direct, executionId);
            return counts.total === RECIPIENTS + 1 && counts.pending === 0;
          },
          90_000,
          'the fan-out to complete',
        );
        const completedMs = Date.now() - restoredAt;
        const acknowledged = during.filter((d) => d.status === 202);
        for (const { executionId: id } of acknowledged)
          await until(async () => (await messageCounts(direct, id!)).byStatus.delivered === 1, 30_000, `trigger ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 1500));

        const counts = await messageCounts(direct, executionId);
        expect(counts.doubled).toBe(0);
        expect(counts.byStatus).toEqual({ delivered: RECIPIENTS, not_to_be_triggered: 1 });
        const runs = await sql<{ n: number }>`
        select count(*)::int as n from workflow_runs where execution_id = ${executionId} and status = 'completed'`.execute(
          direct,
        );
        expect(runs.rows[0]!.n).toBe(RECIPIENTS + 1);
        expect(during.every((d) => d.status === 202 || d.status === 503)).toBe(true);
        for (const { executionId: id } of acknowledged)
          expect((await messageCounts(direct, id!)).byStatus).toEqual({ delivered: 1 });

        recordFigures('outage-fanout', {
          recipients: RECIPIENTS,
          'outage ms': OUTAGE_MS,
          'messages before the cut': before,
          'messages while down': whileDown,
          'triggers during the outage': during.length,
          'answered 503': during.filter((d) => d.status === 503).length,
          'acknowledged (202) during the outage': acknowledged.length,
          'acknowledged and completed': acknowledged.length,
          'seconds from restore to the last message': Math.round(completedMs / 100) / 10,
          'seconds in all': Math.round((Date.now() - began) / 100) / 10,
          '(run, step, channel) recorded twice': counts.doubled,
        });
      } finally {
        proxy.restore();
        await app.close();
        await proxy.close();
        await direct.destroy();
        await database.drop();
      }
    },
  );
});
