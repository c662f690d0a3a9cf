import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ulid } from 'ulid';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { createDatabase, type Db } from '../../src/db/database.js';
import { bootstrapWorkspace } from '../../src/services/workspaces.js';
import { TEST_SECRET_KEY } from '../support/app.js';
import { recordFigures } from '../support/figures.js';
import { FULL_ERROR_KEYS, keysOf, sleep } from '../support/load.js';
import { assertNoCredentialsInLogs } from '../support/secrets.js';
import { request, startServer } from '../support/server-process.js';
import { TcpProxy } from '../support/tcp-proxy.js';
import { createPrivateDatabase } from '../support/private-database.js';

const IN_FLIGHT = 200;

async function until(condition: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('graceful shutdown under load', () => {
  it(
    `SIGTERM with ${IN_FLIGHT} requests in flight finishes them all, refuses new ones, exits 0 and loses no acknowledged write`,
    { timeout: 120_000 },
    async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'herald-shutdown-load-'));
      // LOG_LEVEL debug: each request's arrival is logged, which is how this test sees requests in flight.
      const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'debug' } as NodeJS.ProcessEnv;
      delete env.DATABASE_URL;
      delete env.SECRET_KEY;
      // On PostgreSQL the server reaches the database through a proxy the test holds while the
      // requests arrive: all of them are then inside their handlers, waiting, when SIGTERM lands.
      let proxy: TcpProxy | undefined;
      let token: string | undefined;
      // A database of its own on PostgreSQL: the workspaces created here stay out of the shared one.
      const database = await createPrivateDatabase();
      if (database.url) {
        const { db } = createDatabase({ url: database.url });
        token = (
          await bootstrapWorkspace(db, new SecretBox(TEST_SECRET_KEY), {
            slug: `shutdown-${ulid().toLowerCase()}`,
            actor: null,
          })
        ).service_token;
        await db.destroy();
        proxy = await TcpProxy.start({
          host: new URL(database.url).hostname,
          port: Number(new URL(database.url).port || 5432),
        });
        // Database timeouts far above the hold: this test is about shutdown, not about failing fast.
        Object.assign(env, {
          DATABASE_URL: proxy.urlFor(database.url),
          SECRET_KEY: TEST_SECRET_KEY,
          DATABASE_POOL_SIZE: '4',
          DATABASE_TIMEOUT_MS: '60000',
          DATABASE_STATEMENT_TIMEOUT_MS: '60000',
        });
      }
      const server = await startServer(env);
      let verify: Db | undefined;
      try {
        token ??= /service token \(management\): (hst_\S+)/.exec(server.output())![1];
        const headers = { authorization: `ServiceToken ${token}` };
        const prefix = `shutdown-load-${ulid().toLowerCase()}`;
        const incoming = () => server.logLines().filter((line) => line.msg === 'incoming request').length;
        const completed = () => server.logLines().filter((line) => line.msg === 'request completed').length;

        // Keep-alive connections opened before the signal, to send "new" requests on afterwards.
        const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 4 });
        await Promise.all(
          [0, 1, 2, 3].map(() => request(server.port, { method: 'GET', path: '/healthz', agent: keepAlive })),
        );
        const before = incoming();

        proxy?.cut('hold');
        const inFlight = Array.from({ length: IN_FLIGHT }, (_, i) =>
          request(server.port, {
            method: 'POST',
            path: '/management/v1/workspace/',
            headers,
            body: { name: `${prefix}-${i}` },
          }),
        );
        // Embedded storage cannot be held from outside: the signal lands once a quarter have arrived, so
        // some requests are mid-handler and the rest arrive during shutdown (refused, or finished).
        const arrived = proxy ? IN_FLIGHT : IN_FLIGHT / 4;
        await until(() => incoming() - before >= arrived, 30_000, `${arrived} requests to arrive`);
        const inFlightAtSignal = incoming() - completed();
        server.child.kill('SIGTERM');
        await until(() => server.output().includes('shutting down'), 10_000, 'the server to start shutting down');

        const late = await Promise.all([
          ...[0, 1, 2, 3].map(() =>
            request(server.port, { method: 'GET', path: '/management/v1/workspace/', headers, agent: keepAlive }),
          ),
          ...[0, 1, 2, 3].map(() =>
            request(server.port, { method: 'GET', path: '/management/v1/workspace/', headers }),
          ),
        ]);
        proxy?.restore();
        const outcomes = await Promise.all(inFlight);
        const exitCode = await server.exited;
        keepAlive.destroy();

        // Every request that arrived before the signal was finished; on PostgreSQL all of them had.
        const finished = outcomes.filter((o) => o.status === 201);
        if (proxy)
          expect(
            outcomes.filter((o) => o.status !== 201).map((o) => `${o.status} ${o.error ?? JSON.stringify(o.body)}`),
          ).toEqual([]);
        expect(finished.length).toBeGreaterThanOrEqual(arrived);
        for (const outcome of outcomes.filter((o) => o.status !== 201)) {
          expect([503, 'refused']).toContain(outcome.status);
          if (outcome.status === 503) expect(keysOf(outcome.body)).toEqual(FULL_ERROR_KEYS);
        }
        // Requests after it are refused: 503 in the full shape on a connection still open, or no connection at all.
        for (const outcome of late) {
          expect([503, 'refused']).toContain(outcome.status);
          if (outcome.status === 503) expect(keysOf(outcome.body)).toEqual(FULL_ERROR_KEYS);
        }
        expect(exitCode).toBe(0);
        expect(server.output()).toContain('shut down cleanly');
        assertNoCredentialsInLogs(server.logLines());

        // No acknowledged write is lost.
        const acknowledged = finished.map((o) => (o.body as { slug: string }).slug);
        verify = database.url
          ? createDatabase({ url: database.url }).db
          : createDatabase({ dataDir: join(dataDir, 'pglite') }).db;
        const stored = await verify
          .selectFrom('workspaces')
          .select('slug')
          .where('name', 'like', `${prefix}-%`)
          .execute();
        const storedSlugs = new Set(stored.map((row) => row.slug));
        const missing = acknowledged.filter((slug) => !storedSlugs.has(slug));
        expect(missing).toEqual([]);
        expect(stored.length).toBe(acknowledged.length);

        recordFigures('graceful-shutdown', {
          requests_in_flight_at_sigterm: inFlightAtSignal,
          requests_sent: IN_FLIGHT,
          finished_2xx: finished.length,
          refused_or_503_during_shutdown: outcomes.length - finished.length,
          late_requests: late.length,
          late_refused_or_503: late.filter((o) => o.status === 503 || o.status === 'refused').length,
          exit_code: exitCode ?? -1,
          writes_acknowledged: acknowledged.length,
          writes_acknowledged_found: acknowledged.length - missing.length,
        });
      } finally {
        server.child.kill('SIGKILL');
        await verify?.destroy();
        await proxy?.close();
        await database.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});
