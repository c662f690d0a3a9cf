import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp } from './app.js';
import { createWorkspaceFixture } from './fixtures.js';
import { recordFigures } from './figures.js';
import { fuzzRoute } from './fuzz.js';
import { createPrivateDatabase } from './private-database.js';
import { routeCatalogue, type CatalogueRoute } from './routes.js';
import { assertNoCredentialsInLogs } from './secrets.js';

/**
 * Cases per route: 100 in a plain `npm test`, which keeps the whole suite under five minutes on two
 * cores; 1,000 in CI (`.ci/run` sets FUZZ_RUNS), the figure RELIABILITY.md quotes; more for a longer
 * hunt (FUZZ_SEED replays a failure).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/**
 * One test per route the app documents when the file runs, selected by `select` (and, to spread a
 * surface over several files, every `shard.count`-th of them): each route gets a fresh workspace and
 * RUNS generated requests (see fuzzRoute). One app and one private database per file.
 */
export async function defineRouteFuzz(
  id: string,
  title: string,
  select: (route: CatalogueRoute) => boolean,
  shard = { index: 0, count: 1 },
) {
  const database = await createPrivateDatabase();
  const t = await buildTestApp(database.url ? { DATABASE_URL: database.url } : {}, {
    // The durable queue (no worker) registers the trigger and broadcast routes, which then join in.
    engine: { worker: false },
  });
  const catalogue = await routeCatalogue(t.app);
  const routes = catalogue.filter(select).filter((_, i) => i % shard.count === shard.index);
  const totals = { routes: routes.length, cases: 0, accepted: 0, rejected: 0, fewest_cases_on_a_route: Infinity };
  const statuses: Record<string, number> = {};

  afterAll(async () => {
    await t.close();
    await database.drop();
    assertNoCredentialsInLogs(t.logs);
    recordFigures(id, { ...totals, cases_per_route: RUNS, statuses: JSON.stringify(statuses) });
  });

  describe(title, () => {
    it('finds the routes to fuzz in the OpenAPI documents', () => {
      expect(routes.length).toBeGreaterThan(0);
    });

    for (const route of routes) {
      it(
        `${route.label}: ${RUNS} generated requests, each answered as documented, none leaving a partial write`,
        { timeout: 600_000 },
        async () => {
          const ws = await createWorkspaceFixture(t);
          const outcome = await fuzzRoute(t, catalogue, route, ws, { runs: RUNS, seed: SEED });
          totals.cases += outcome.cases;
          totals.accepted += outcome.accepted;
          totals.rejected += outcome.rejected;
          totals.fewest_cases_on_a_route = Math.min(totals.fewest_cases_on_a_route, outcome.cases);
          for (const [status, count] of Object.entries(outcome.statuses))
            statuses[status] = (statuses[status] ?? 0) + count;
          expect(outcome.cases).toBeGreaterThanOrEqual(RUNS);
          // The whole file's logs are checked at the end; checking per route keeps memory flat.
          assertNoCredentialsInLogs(t.logs);
          t.logs.length = 0;
        },
      );
    }
  });
}
