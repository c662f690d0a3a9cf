import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { createDatabase } from '../../src/db/database.js';
import { describe, expect, it } from 'vitest';
import { createPrivateDatabase } from '../support/private-database.js';
import {
  prepareHeraldProcesses,
  processCallers,
  publishInboxWorkflow,
  startServer,
  type ServerProcess,
} from '../support/server-process.js';
import { DEFINITION } from '../support/preferences.js';
import { until } from '../support/faults.js';

const SUBSCRIBERS = 300;

/**
 * A worker process killed (SIGKILL) in the middle of a fan-out: what it had taken goes back to the
 * queue once its jobs expire, a second process finishes the run, and every recipient ends up with
 * exactly one message. On PostgreSQL the second process is another instance; on embedded storage it
 * is the same folder opened again.
 */
describe('a worker killed mid fan-out', () => {
  it('leaves its work to the next worker: every recipient gets exactly one message', async () => {
    const database = await createPrivateDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-kill-'));
    const herald = await prepareHeraldProcesses(database, {
      dataDir,
      slug: 'kill',
      env: {
        LOG_LEVEL: 'info',
        ENGINE_FANOUT_PAGE_SIZE: '10',
        WORKER_CONCURRENCY: '1',
        QUEUE_POLLING_INTERVAL_SECONDS: '0.5',
        QUEUE_JOB_EXPIRE_SECONDS: '5',
        QUEUE_SUPERVISE_SECONDS: '1',
      },
      postgres: { QUEUE_SCHEMA: 'pgboss' },
    });
    const env = herald.env;
    let server: ServerProcess | undefined;
    try {
      server = await startServer(env);
      const { call, management: managementAt } = await processCallers(() => server!.port, herald.credentials(server));
      const management = (method: string, path: string, body?: unknown) => managementAt(method, path, body);
      expect((await management('POST', '/preference_category/?commit=true', DEFINITION)).status).toBe(200);
      await publishInboxWorkflow({ management: managementAt }, 'crowd');
      await call('POST', '/v1/object/crowd/all/', {});
      for (let page = 0; page < SUBSCRIBERS / 100; page++) {
        const recipients = Array.from({ length: 100 }, (_, i) => `member-${page * 100 + i}`);
        expect((await call('POST', '/v1/object/crowd/all/subscription/', { recipients })).status).toBe(200);
      }

      const accepted = await call('POST', '/trigger/', {
        workflow: 'crowd',
        recipients: [{ object_type: 'crowd', id: 'all' }],
      });
      expect(accepted.status).toBe(202);
      const executionId = (accepted.body as { message_id: string }).message_id;
      const count = async () =>
        ((await call('GET', `/v1/message/?execution_id=${executionId}&limit=1`)).body as { meta: { count: number } })
          .meta.count;
      await until(async () => (await count()) >= 20, 60_000, 'the fan-out to start');
      server.child.kill('SIGKILL');
      await server.exited;
      const partial = await count().catch(() => undefined);
      expect(partial).toBeUndefined(); // the first process is gone

      server = await startServer(env);
      const total = await until(
        async () => {
          const n = await count();
          return n === SUBSCRIBERS + 1 ? n : undefined;
        },
        90_000,
        'the second worker to finish',
      ).catch(async (error) => {
        let states = '';
        if (database.url) {
          const { db } = createDatabase({ url: database.url });
          const rows = await sql<{
            name: string;
            state: string;
            n: number;
          }>`select name, state, count(*)::int as n from pgboss.job group by 1, 2`.execute(db);
          states = JSON.stringify(rows.rows);
          const created = await sql<
            Record<string, unknown>
          >`select start_after, now() as now, retry_count, created_on, singleton_key, group_id, blocked from pgboss.job where state = 'created' limit 2`.execute(
            db,
          );
          states = `created ${JSON.stringify(created.rows)} ${states}`;
          await db.destroy();
        }
        throw new Error(
          `${(error as Error).message}: ${await count()} messages; jobs ${states}; output ${server!
            .output()
            .split('\n')
            .filter((l) => !l.includes('request completed') && !l.includes('incoming request'))
            .slice(-40)
            .join('\n')
            .slice(-4000)}`,
        );
      });
      expect(total).toBe(SUBSCRIBERS + 1);
      // Let any duplicate delivery surface before counting.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const all: { recipient: { distinct_id?: string }; status: string }[] = [];
      let after: string | null = null;
      do {
        const page = (
          await call('GET', `/v1/message/?execution_id=${executionId}&limit=1000${after ? `&after=${after}` : ''}`)
        ).body as { results: typeof all; meta: { after: string | null; has_next: boolean } };
        all.push(...page.results);
        after = page.meta.has_next ? page.meta.after : null;
      } while (after);
      const users = all.filter((m) => m.recipient.distinct_id !== undefined).map((m) => m.recipient.distinct_id);
      expect(users).toHaveLength(SUBSCRIBERS);
      expect(new Set(users).size).toBe(SUBSCRIBERS);
      await until(
        async () => {
          const pending = (
            (await call('GET', `/v1/message/?execution_id=${executionId}&status[]=to_be_triggered&limit=1`)).body as {
              meta: { count: number };
            }
          ).meta.count;
          return pending === 0;
        },
        30_000,
        'every delivery to finish',
      );
      const delivered = (
        (await call('GET', `/v1/message/?execution_id=${executionId}&status[]=delivered&limit=1`)).body as {
          meta: { count: number };
        }
      ).meta.count;
      expect(delivered).toBe(SUBSCRIBERS);
    } finally {
      if (server && server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
      await database.drop();
    }
  }, 240_000);
});
