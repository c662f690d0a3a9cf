/**
 * Segment dry-run benchmark: seeds one workspace with 200,000 users (one set-based statement),
 * then times dry runs of a few simple segment filters through the real route (guard + runner).
 * Records timings; asserts nothing about the clock.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/segments-dry-run.ts   (PostgreSQL, migrated on start)
 *   npx tsx bench/segments-dry-run.ts                              (embedded PGlite, in memory)
 *
 * BENCH_USERS and BENCH_RUNS override the user count (200000) and runs per query (20).
 */
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { bootstrapWorkspace } from '../src/services/workspaces.js';

const USERS = Number(process.env.BENCH_USERS ?? 200_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SECRET = 'bench-secret-key-bench-secret-key-0123456789';

const QUERIES = {
  'property equals (many matches)': "select distinct_id from users where user_properties->>'plan' = 'pro'",
  'property equals (rare)':
    "select distinct_id, active_emails from users where user_properties->>'plan' = 'enterprise'",
  'no match (scans every user)': "select distinct_id from users where user_properties->>'plan' = 'none'",
  'active email channel': "select distinct_id, active_emails from users where 'email' = any(active_channels)",
  'order by a property, top 10':
    "select distinct_id, (user_properties->>'score')::int as score from users order by score desc",
};

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function main() {
  const config = loadConfig({ LOG_LEVEL: 'silent', SECRET_KEY: SECRET, DATABASE_URL: process.env.DATABASE_URL });
  const { db, kind } = createDatabase({ url: config.DATABASE_URL, dataDir: 'memory://', poolSize: 4 });
  await migrateToLatest(db);
  const secretBox = new SecretBox(SECRET);
  const slug = `bench-segments-${Date.now()}`;
  const credentials = await bootstrapWorkspace(db, secretBox, { slug, actor: null });
  const { id: workspaceId } = await db
    .selectFrom('workspaces')
    .select('id')
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow();

  const seedStart = performance.now();
  await sql`
    insert into users (workspace_id, distinct_id, properties, channels)
    select ${workspaceId}, 'user-' || n,
      jsonb_build_object('plan', case when n % 1000 = 0 then 'enterprise' when n % 3 = 0 then 'pro' else 'free' end,
        'score', n % 977, '$locale', 'en_US', '$timezone', 'UTC'),
      jsonb_build_object('$email', jsonb_build_array(jsonb_build_object('value', 'user-' || n || '@example.com',
        'status', case when n % 2 = 0 then 'active' else 'inactive' end, 'perma_status', 'active')))
    from generate_series(1, ${USERS}) as n`.execute(db);
  await sql`analyze users`.execute(db);
  const seedMs = performance.now() - seedStart;

  const app = await buildApp({ config, db, databaseKind: kind, secretBox });
  await app.ready();
  console.log(`database ${kind}; ${USERS} users seeded in ${(seedMs / 1000).toFixed(1)} s; ${RUNS} runs per query`);
  for (const [name, query] of Object.entries(QUERIES)) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      const response = await app.inject({
        method: 'POST',
        url: '/v1/subscriber_list/~/dry_run/',
        headers: { authorization: `Bearer ${credentials.api_key}` },
        payload: { query },
      });
      times.push(performance.now() - start);
      if (response.statusCode !== 200) throw new Error(`${name}: ${response.statusCode} ${response.body}`);
    }
    times.sort((a, b) => a - b);
    console.log(
      `${name.padEnd(36)} p50 ${percentile(times, 50).toFixed(1)} ms  p95 ${percentile(times, 95).toFixed(1)} ms  max ${times.at(-1)!.toFixed(1)} ms`,
    );
  }
  await app.close();
  await db.deleteFrom('workspaces').where('id', '=', workspaceId).execute();
  await db.destroy();
}

await main();
