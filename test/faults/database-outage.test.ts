import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { createDatabase, type Db } from '../../src/db/database.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { recordFigures } from '../support/figures.js';
import { FULL_ERROR_KEYS, keysOf, runLoad, SHORT_ERROR_KEYS, sleep, type Sample } from '../support/load.js';
import { TcpProxy, type Fault } from '../support/tcp-proxy.js';

const DATABASE_URL = process.env.DATABASE_URL;
/** Both database timeouts in this test: a request during the outage must answer well within a few of them. */
const TIMEOUT_MS = 1000;
/** The slowest answer allowed during the outage: waiting for a connection, then a statement and its rollback. */
const LATENCY_BOUND_MS = TIMEOUT_MS * 3 + 1000;
const BEFORE_MS = 1500;
// Longer than the bound, so a request stuck until the network returns would exceed it.
const OUTAGE_MS = 6000;
const RECOVERY_BOUND_MS = 5000;

type Label = 'write' | 'read';

// Only PostgreSQL runs over a network that can fail; the embedded engine lives in the process.
describe.runIf(DATABASE_URL)('PostgreSQL going away under load', () => {
  // A database of its own: thousands of workspaces are created here, none of them in the shared one.
  let database: PrivateDatabase;
  let direct: Db;
  beforeAll(async () => {
    database = await createPrivateDatabase();
    direct = createDatabase({ url: database.url }).db;
  });
  afterAll(async () => {
    await direct.destroy();
    await database.drop();
  });

  for (const fault of ['reset', 'hold'] as const) {
    it(
      `${fault === 'reset' ? 'server gone (connections reset)' : 'network partition (half-open connections)'}: fast 503s, /readyz not ready, recovery within 5 s, no acknowledged write lost or doubled`,
      { timeout: 60_000 },
      async () => {
        const proxy = await TcpProxy.start({
          host: new URL(DATABASE_URL!).hostname,
          port: Number(new URL(DATABASE_URL!).port || 5432),
        });
        const t = await buildTestApp({
          DATABASE_URL: proxy.urlFor(database.url!),
          DATABASE_TIMEOUT_MS: String(TIMEOUT_MS),
          DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUT_MS),
        });
        try {
          await runOutage(t, proxy, fault, direct);
        } finally {
          proxy.restore();
          await t.close();
          await proxy.close();
        }
      },
    );
  }
});

async function runOutage(t: TestApp, proxy: TcpProxy, fault: Fault, direct: Db) {
  const ws: WorkspaceFixture = await createWorkspaceFixture(t);
  const prefix = `outage-${fault}-${ulid().toLowerCase()}`;
  const began = Date.now();
  const clock = () => Date.now() - began;
  let cutAt = Infinity;
  let restoredAt = Infinity;
  let stopped = false;
  let recoveredAt: number | undefined;

  const send = async (worker: number, iteration: number) => {
    const label: Label = iteration % 4 === 3 ? 'read' : 'write';
    const response =
      label === 'write'
        ? await t.app.inject({
            method: 'POST',
            url: '/management/v1/workspace/',
            headers: ws.management,
            payload: { name: `${prefix}-${worker}-${iteration}` },
          })
        : await t.app.inject({ method: 'GET', url: '/v1/user/nobody/', headers: ws.base });
    if (label === 'write' && response.statusCode === 201 && restoredAt !== Infinity) recoveredAt ??= clock();
    return { label, status: response.statusCode, body: response.json(), headers: response.headers };
  };
  const readiness = async () => {
    const samples: Sample<'ready'>[] = [];
    while (!stopped) {
      const start = clock();
      const response = await t.app.inject({ method: 'GET', url: '/readyz' });
      samples.push({
        label: 'ready',
        start,
        end: clock(),
        status: response.statusCode,
        body: response.json(),
        headers: response.headers,
      });
      await sleep(100);
    }
    return samples;
  };
  const script = async () => {
    await sleep(BEFORE_MS);
    cutAt = clock();
    proxy.cut(fault);
    await sleep(OUTAGE_MS);
    restoredAt = clock();
    proxy.restore();
    // Run until writes have succeeded again for 2 s (or the recovery bound has clearly passed).
    const deadline = restoredAt + RECOVERY_BOUND_MS + 2000;
    while (clock() < deadline && !(recoveredAt !== undefined && clock() > recoveredAt + 2000)) await sleep(50);
    stopped = true;
  };

  const [samples, ready] = await Promise.all([
    runLoad<Label>({ workers: 12, stop: () => stopped, send, clock }),
    readiness(),
    script(),
  ]);

  // Nothing but success, "not found" for the absent user, or a 503 in the route's own error shape.
  const unexpected = samples.filter((s) => ![200, 201, 404, 503].includes(s.status));
  expect(unexpected.map((s) => `${s.label} ${s.status} ${JSON.stringify(s.body)}`)).toEqual([]);
  for (const s of samples.filter((sample) => sample.status === 503)) {
    expect(keysOf(s.body)).toEqual(s.label === 'read' ? SHORT_ERROR_KEYS : FULL_ERROR_KEYS);
    expect(s.body).toMatchObject({ code: 503 });
    expect(s.headers['retry-after']).toBe('1');
  }

  const before = samples.filter((s) => s.end < cutAt);
  const during = samples.filter((s) => s.start >= cutAt && s.end < restoredAt);
  expect(before.length, 'requests before the outage').toBeGreaterThan(0);
  expect(before.filter((s) => s.status === 503).length, '503s before the outage').toBe(0);
  // Requests made while the database is away fail, and fail fast.
  expect(during.length, 'requests during the outage').toBeGreaterThan(0);
  expect(during.filter((s) => s.status !== 503).map((s) => `${s.label} ${s.status}`)).toEqual([]);
  const slowest = Math.max(...samples.filter((s) => s.end > cutAt && s.start < restoredAt).map((s) => s.end - s.start));
  expect(slowest, 'slowest answer during the outage (ms)').toBeLessThanOrEqual(LATENCY_BOUND_MS);

  // Readiness follows the database.
  const readyDuring = ready.filter((s) => s.start >= cutAt + 100 && s.end < restoredAt);
  expect(readyDuring.length, 'readiness checks during the outage').toBeGreaterThan(0);
  expect(readyDuring.filter((s) => s.status !== 503).length, 'ready during the outage').toBe(0);
  const readyAgain = ready.find((s) => s.start >= restoredAt && s.status === 200);
  expect(readyAgain, 'ready again after the database returned').toBeDefined();
  expect(readyAgain!.end - restoredAt).toBeLessThanOrEqual(RECOVERY_BOUND_MS);

  // Recovery without a restart: writes succeed again within 5 s, and from then on all of them do.
  const firstSuccess = samples
    .filter((s) => s.label === 'write' && s.start >= restoredAt && s.status === 201)
    .sort((a, b) => a.end - b.end)[0];
  expect(firstSuccess, 'a write succeeded after the database returned').toBeDefined();
  const recoveryMs = firstSuccess!.end - restoredAt;
  expect(recoveryMs, 'recovery (ms)').toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  const settled = samples.filter((s) => s.start > firstSuccess!.end + 500);
  expect(settled.length, 'requests after recovery').toBeGreaterThan(0);
  expect(settled.filter((s) => s.status === 503).length, '503s after recovery').toBe(0);

  // Every acknowledged write is in the database exactly once; an unacknowledged one is there whole or not at all.
  const writes = samples.filter((s) => s.label === 'write');
  const acknowledged = writes.filter((s) => s.status === 201).map((s) => (s.body as { slug: string }).slug);
  expect(new Set(acknowledged).size).toBe(acknowledged.length);
  const stored = await direct
    .selectFrom('workspaces')
    .select((eb) => [
      'slug',
      eb
        .selectFrom('tenants')
        .whereRef('tenants.workspace_id', '=', 'workspaces.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('tenants'),
      eb
        .selectFrom('workspace_keys')
        .whereRef('workspace_keys.workspace_id', '=', 'workspaces.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('keys'),
    ])
    .where('name', 'like', `${prefix}-%`)
    .execute();
  const storedSlugs = new Map(stored.map((row) => [row.slug, row]));
  const missing = acknowledged.filter((slug) => !storedSlugs.has(slug));
  expect(missing).toEqual([]);
  const partial = stored.filter((row) => Number(row.tenants) !== 1 || Number(row.keys) !== 1);
  expect(partial).toEqual([]);

  recordFigures(`database-outage-${fault}`, {
    requests: samples.length + ready.length,
    requests_during_outage: during.length,
    answered_503: samples.filter((s) => s.status === 503).length,
    slowest_answer_during_outage_ms: slowest,
    faults_injected: proxy.faults,
    outage_ms: OUTAGE_MS,
    recovery_ms: recoveryMs,
    writes_acknowledged: acknowledged.length,
    writes_acknowledged_found: acknowledged.length - missing.length,
    writes_unacknowledged_but_committed: stored.length - acknowledged.length,
    partial_writes: partial.length,
  });
}
