import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { recordFigures } from '../support/figures.js';
import { authFor, KnownValues, requestArbitrary, type FuzzRequest } from '../support/fuzz.js';
import { runLoad } from '../support/load.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { problemWith, routeCatalogue, type CatalogueRoute } from '../support/routes.js';
import { valid } from '../support/schema-arbitrary.js';
import { assertNoCredentialsInLogs } from '../support/secrets.js';

/** 3 s in CI; `npm run test:soak` runs 20 s. */
const SECONDS = Number(process.env.SOAK_SECONDS ?? 3);
const CLIENTS = 50;
const REQUESTS_PER_ROUTE = 100;
const COUNTER = 'soak_counter';

describe(`concurrency soak: ${CLIENTS} clients on the same rows for ${SECONDS} s`, () => {
  let database: PrivateDatabase;
  let t: TestApp;
  let ws: WorkspaceFixture;
  let routes: CatalogueRoute[];
  /** One value per path parameter name, shared by every route: all clients hit the same user, object, tenant… */
  const hot = new Map<string, string>();

  beforeAll(async () => {
    database = await createPrivateDatabase();
    // Logs at warn: 50 clients make many lines; errors and deadlock reports are what is looked for.
    t = await buildTestApp({
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      LOG_LEVEL: 'warn',
      DATABASE_POOL_SIZE: '10',
    });
    ws = await createWorkspaceFixture(t);
    routes = (await routeCatalogue(t.app)).filter(
      (route) =>
        route.surface !== 'public' &&
        route.surface !== 'inbox' &&
        // The queue overview reads the durable queue, which this app (no engine) does not run: it answers its
        // documented 503 here; the management fuzz covers it with a queue.
        route.path !== '/management/v1/{workspace}/queue/' &&
        route.params.every((p) => p.name !== 'workspace' || route.surface === 'management'),
    );
    hot.set('workspace', ws.slug);
    for (const param of routes.flatMap((route) => route.params)) {
      if (!hot.has(param.name))
        hot.set(
          param.name,
          String(
            fc.sample(
              valid(param.schema, () => [], param.name),
              { seed: 7, numRuns: 1 },
            )[0],
          ),
        );
    }
  }, 120_000);

  afterAll(async () => {
    await t.close();
    await database.drop();
  });

  it(
    'no 5xx, no deadlock surfaced, every answer as documented, lists and counters consistent afterwards',
    { timeout: 120_000 + SECONDS * 1000 },
    async () => {
      const known = new KnownValues(new Set([ws.apiKeyId]));
      const paramKnown = (name: string) => [hot.get(name) ?? '', ...known.lookup(name)].filter(Boolean);
      const pool: { route: CatalogueRoute; request: FuzzRequest }[] = [];
      for (const route of routes) {
        for (const request of fc.sample(
          requestArbitrary(route, known.lookup, authFor(route, ws), 'valid', paramKnown),
          REQUESTS_PER_ROUTE,
        ))
          pool.push({ route, request });
      }
      // A counter every client increments on one user, when the app edits users: every acknowledged add counts, once.
      const editUser = routes.find((route) => route.method === 'PATCH' && route.path === '/v1/user/{distinct_id}/');
      const hotUser = '/v1/user/soak-counter/';
      if (editUser) {
        expect((await t.app.inject({ method: 'POST', url: hotUser, headers: ws.base, payload: {} })).statusCode).toBe(
          201,
        );
      }
      let acknowledgedAdds = 0;
      const problems: string[] = [];
      const statuses: Record<string, number> = {};
      const began = Date.now();
      const samples = await runLoad({
        workers: CLIENTS,
        clock: () => Date.now() - began,
        stop: () => Date.now() - began > SECONDS * 1000,
        send: async (worker, iteration) => {
          if (editUser && iteration % 5 === 0) {
            const answer = await t.app.inject({
              method: 'PATCH',
              url: hotUser,
              headers: ws.base,
              payload: { operations: [{ $add: { [COUNTER]: 1 } }] },
            });
            if (answer.statusCode === 202) acknowledgedAdds += 1;
            const problem = problemWith(editUser, answer);
            if (problem) problems.push(`counter: ${problem}`);
            statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
            return { label: 'counter', status: answer.statusCode, body: null, headers: {} };
          }
          const { route, request } = pool[(worker * 7919 + iteration * 104_729) % pool.length]!;
          const answer = await t.app.inject(request);
          statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
          const problem = problemWith(route, answer);
          if (problem) problems.push(`${route.label}: ${problem}`);
          else if (answer.statusCode < 300 && answer.body) known.harvest(JSON.parse(answer.body));
          return { label: route.label, status: answer.statusCode, body: null, headers: {} };
        },
      });
      expect(problems.slice(0, 5)).toEqual([]);
      expect(samples.filter((s) => s.status >= 500)).toEqual([]);
      const slowest = Math.max(...samples.map((s) => s.end - s.start));
      expect(slowest).toBeLessThan(10_000);
      // Nothing went wrong out of sight: no error logged, no deadlock reported by the database.
      const errors = t.logs.filter((line) => Number(line.level) >= 50 || /deadlock/i.test(JSON.stringify(line)));
      expect(errors.slice(0, 3)).toEqual([]);
      assertNoCredentialsInLogs(t.logs);

      // Every list answers a count that matches what it lists.
      let listsChecked = 0;
      for (const route of routes.filter((r) => r.method === 'GET' && r.query.some((q) => q.name === 'limit'))) {
        const url = `${route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(hot.get(name)!))}?limit=1000`;
        const answer = await t.app.inject({ method: 'GET', url, headers: authFor(route, ws) });
        expect(problemWith(route, answer), url).toBeUndefined();
        const body =
          answer.statusCode === 200 ? (answer.json() as { meta?: { count?: number }; results?: unknown[] }) : undefined;
        if (body?.meta?.count !== undefined && body.results && body.meta.count <= 1000) {
          expect(body.results.length, url).toBe(body.meta.count);
          listsChecked += 1;
        }
      }
      // Counters the database keeps (subscriptions_count, when the schema has it) agree with the rows they count.
      const { rows: counters } = await sql<{ n: number }>`
      select count(*)::int as n from information_schema.columns where table_schema = current_schema() and table_name = 'objects' and column_name = 'subscriptions_count'`.execute(
        t.db,
      );
      let countersChecked = 0;
      if (counters[0]!.n > 0) {
        const { rows } = await sql<{ id: number; stored: number; actual: number }>`
        select o.id, o.subscriptions_count as stored, (select count(*) from subscriptions s where s.object_id = o.id)::int as actual
        from objects o where o.workspace_id = ${ws.workspaceId}`.execute(t.db);
        expect(rows.filter((row) => Number(row.stored) !== Number(row.actual))).toEqual([]);
        countersChecked = rows.length;
      }
      let counterValue: number | undefined;
      if (editUser) {
        const user = await t.app.inject({ method: 'GET', url: hotUser, headers: ws.base });
        expect(user.statusCode).toBe(200);
        counterValue = Number((user.json() as { properties: Record<string, unknown> }).properties[COUNTER] ?? 0);
        expect(counterValue).toBe(acknowledgedAdds);
      }

      recordFigures(SECONDS >= 20 ? 'concurrency-soak' : 'concurrency-soak-ci', {
        clients: CLIENTS,
        seconds: SECONDS,
        routes: routes.length,
        requests: samples.length,
        answered_5xx: samples.filter((s) => s.status >= 500).length,
        slowest_ms: slowest,
        statuses: JSON.stringify(statuses),
        lists_checked: listsChecked,
        counters_checked: countersChecked,
        counter_adds_acknowledged: acknowledgedAdds,
        counter_value_found: counterValue ?? 'no user edits in this build',
      });
    },
  );
});
