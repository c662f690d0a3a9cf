import { parseArgs } from 'node:util';

/** How much data to seed and how long to load: the full run is the one BENCHMARKS.md reports. */
export interface Sizes {
  users: number;
  events: number;
  objects: number;
  /** Subscribers of the one large object in the main workspace. */
  objectSubscribers: number;
  /** Scenario 7: subscribers of the large object it compares against an empty one. */
  scaleSubscribers: number;
  /** Seconds of load per measured run, and of warm-up before it. */
  duration: number;
  warmup: number;
  /** Scenarios 1 and 6: short interleaved rounds of baseline / Herald, so noise falls on both alike. */
  rounds: number;
  roundSeconds: number;
  /** Upper bound, in seconds, on seeding through the API (subscriptions); what was reached is reported. */
  apiSeedBudget: number;
  /** Scenario 15: rows older than RETENTION_DAYS seeded before each of its runs, for the purge beside the fan-out. */
  expiredRows: number;
  /** Scenario 15: pairs of fan-outs without and with the purge. */
  pairs: number;
  /** Scenario 14: the rates offered, triggers/s, stepped up until one does not hold (`--rates`; else by mode). */
  rates?: number[];
}

const FULL: Sizes = {
  users: 100_000,
  events: 1_000_000,
  objects: 1_000,
  objectSubscribers: 100_000,
  scaleSubscribers: 1_000_000,
  duration: 15,
  warmup: 3,
  rounds: 6,
  roundSeconds: 5,
  apiSeedBudget: 360,
  expiredRows: 1_000_000,
  pairs: 2,
};

const QUICK: Sizes = {
  users: 10_000,
  events: 100_000,
  objects: 100,
  objectSubscribers: 5_000,
  scaleSubscribers: 20_000,
  duration: 4,
  warmup: 1,
  rounds: 2,
  roundSeconds: 3,
  apiSeedBudget: 30,
  expiredRows: 100_000,
  pairs: 2,
};

export interface BenchOptions {
  quick: boolean;
  embedded: boolean;
  sizes: Sizes;
  /** Scenario ids to run (all when empty). */
  only: Set<string>;
  /** Herald's LOG_LEVEL: the default `info` measures what ships. */
  logLevel: string;
  /** Start Herald with --cpu-prof; profiles land in bench/results/profiles/. */
  profile: boolean;
  /** Replace the generated section of BENCHMARKS.md (default for a full run). */
  writeBenchmarks: boolean;
  /**
   * A delivery-status webhook endpoint (every event type) pointing at a receiver the harness starts
   * (bench/status-webhooks.ts); Herald's outbound guard is told to allow 127.0.0.1 (OUTBOUND_ALLOWED_HOSTS).
   */
  statusWebhooks: boolean;
  databaseUrl: string;
}

const USAGE = `npm run bench -- [options]

  --quick            small data set and short runs (< 2 minutes)
  --embedded         Herald on embedded PGlite (temporary DATA_DIR) instead of PostgreSQL
  --only 1,5         run only these scenarios (15, the fan-out beside a retention purge, runs only when named)
  --log-level L      Herald LOG_LEVEL (default info, as shipped)
  --profile          start Herald with --cpu-prof (bench/results/profiles/)
  --rounds N         interleaved rounds for scenarios 1 and 6 (more rounds, steadier ratio)
  --subscribers N    subscribers of the fan-out object (scenarios 9, 10, 12, 15), with at least as
                     many users and 10 events per user: a quick run on the full run's table sizes
                     (and scenario 15's 1,000,000 old rows)
  --pairs N          scenario 15: pairs of fan-outs without / with the purge, alternating (default 2)
  --rates 250,500    scenario 14: offer these rates only (triggers/s), stepped up until one does not hold
                     (default 250 … 4,000 quick, 500 … 6,000 full): one fixed rate compares builds' CPU
  --status-webhooks  the engine scenarios with a delivery-status webhook endpoint (every event) posting to a
                     receiver in the harness; each reports the events received against its messages
  --no-write         do not update BENCHMARKS.md (quick runs never do)

PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/herald_bench).
The database is dropped and created again on every run: its name must contain "bench".`;

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      embedded: { type: 'boolean', default: false },
      only: { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      profile: { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
      rounds: { type: 'string' },
      subscribers: { type: 'string' },
      pairs: { type: 'string' },
      'status-webhooks': { type: 'boolean', default: false },
      rates: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/herald_bench';
  if (!values.embedded && !/bench[^/]*$/.test(new URL(databaseUrl).pathname)) {
    throw new Error(`refusing to drop ${databaseUrl}: the benchmark database name must contain "bench"`);
  }
  const only = new Set(
    (values.only ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  );
  const subscribers = values.subscribers ? Math.max(1, Number(values.subscribers)) : undefined;
  const sizes = {
    ...(values.quick ? QUICK : FULL),
    ...(values.rounds ? { rounds: Math.max(1, Number(values.rounds)) } : {}),
    ...(values.pairs ? { pairs: Math.max(1, Number(values.pairs)) } : {}),
    ...(values.rates ? { rates: values.rates.split(',').map((rate) => Math.max(1, Number(rate))) } : {}),
  };
  if (subscribers !== undefined) {
    sizes.objectSubscribers = subscribers;
    sizes.users = Math.max(sizes.users, subscribers);
    sizes.events = Math.max(sizes.events, 10 * sizes.users);
    // Seeding the subscribers through the API gets a third of this budget.
    sizes.apiSeedBudget = Math.max(sizes.apiSeedBudget, 3 * Math.ceil(subscribers / 1000));
    sizes.expiredRows = FULL.expiredRows;
  }
  return {
    quick: values.quick,
    embedded: values.embedded,
    sizes,
    only,
    logLevel: values['log-level'],
    profile: values.profile,
    writeBenchmarks:
      !values.quick &&
      !values['no-write'] &&
      !values['status-webhooks'] &&
      !values.rates &&
      only.size === 0 &&
      subscribers === undefined,
    statusWebhooks: values['status-webhooks'],
    databaseUrl,
  };
}

/** Scenarios a run without --only leaves out: 15 seeds a million rows before each of its runs. */
const ON_REQUEST = new Set(['15']);

export const wants = (options: BenchOptions, id: string) =>
  options.only.size === 0 ? !ON_REQUEST.has(id) : options.only.has(id);

/** Scenario 7's pool of recipients beyond the large object's subscribers (new ones to add). */
export const scaleExtra = (sizes: Sizes) => Math.max(10_000, Math.floor(sizes.scaleSubscribers / 10));
