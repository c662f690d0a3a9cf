/**
 * `npm run bench`: seeds a data set, starts Herald and a bare Fastify + pg baseline as child
 * processes, loads both from here with autocannon over 127.0.0.1, and writes the figures.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { parseOptions, wants, type BenchOptions } from './options.js';
import { prepareDatabase, seedScaleUsers, type Timed } from './prepare.js';
import { databaseCpuMs, RssSampler, startBackground, startServer, stopServer, type Server } from './processes.js';
import {
  fanOutBesidePurge,
  fanOuts,
  idleLatency,
  providerBoundWorkers,
  sustained,
  seedEngine,
  startSink,
  triggerAccept,
  twoByTwo,
  type EngineContext,
} from './scenarios-engine.js';
import { checkTargets, renderReport, type RunInfo } from './report.js';
import { readPath, listWorkspaceKeys } from './scenarios-read.js';
import { addSubscriptions, bulkPreferences, segmentDryRun, subscriptionScaling } from './scenarios-write.js';
import type { ScenarioContext, ScenarioResult } from './measure.js';
import { addStatusWebhookEndpoint, startEventReceiver, type EventReceiver } from './status-webhooks.js';
import { seedMainThroughApi, seedScaleThroughApi, type ApiContext, type SeedOutcome } from './seed-api.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Node's flags in `npm start` (the heap limit): Herald is measured as it is started. */
function startFlags(): string[] {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts
    .start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
}
const MANAGEMENT_PREFIX = '/management';
const started = Date.now();
const log = (line: string) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

const timed: Timed = async <T>(what: string, work: () => Promise<T>): Promise<{ value: T; seconds: number }> => {
  const t0 = Date.now();
  log(what);
  const value = await work();
  return { value, seconds: (Date.now() - t0) / 1000 };
};

function machine(postgres: string): RunInfo['machine'] {
  const cores = cpus();
  return {
    cpus: `${cores.length} × ${cores[0]?.model.trim() ?? 'unknown CPU'}`,
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: `${type()} ${release()}`,
    node: process.version,
    postgres,
  };
}

const gitCommit = () => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

async function runScenarios(
  options: BenchOptions,
  ctx: ScenarioContext,
  engine: (events?: EventReceiver) => Promise<EngineContext>,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const step = async (ids: string[], title: string, work: () => Promise<ScenarioResult | ScenarioResult[]>) => {
    if (!ids.some((id) => wants(options, id))) return;
    log(`scenario ${ids.join(' + ')}: ${title}`);
    const outcome = await work();
    // Where Herald's whole-run peak (VmHWM) is reached, when no sampled window shows it.
    log(`  Herald VmHWM so far: ${ctx.sampler.highWaterMark().toFixed(1)} MB`);
    for (const result of Array.isArray(outcome) ? outcome : [outcome]) {
      results.push(result);
      if (result.status !== 'measured')
        log(
          `  ${result.id}: ${result.status === 'unavailable' ? 'not available in this build' : 'failed'}: ${result.reason}`,
        );
    }
  };
  await step(['1', '6'], 'GET user, Bearer and signed, against the baseline', () =>
    readPath(ctx, { bearer: wants(options, '1'), signed: wants(options, '6') }),
  );
  await step(['5'], 'list workspace keys', () => listWorkspaceKeys(ctx));
  await step(['4'], 'segment dry run', () => segmentDryRun(ctx));
  // The engine's scenarios run before 2 and 3, whose writes change subscriptions and preferences.
  if (['8', '9', '10', '11', '12', '13', '14', '15'].some((id) => wants(options, id))) {
    const sink = await startSink();
    const receiver = options.statusWebhooks ? await startEventReceiver() : undefined;
    try {
      const ectx = await engine(receiver);
      const seeded =
        (await seedEngine(ctx.main, sink.url)) ??
        (receiver ? await addStatusWebhookEndpoint(ctx.main, receiver.url) : undefined);
      if (seeded) throw new Error(`seeding the engine scenarios failed: ${seeded}`);
      if (receiver) log(`  status webhooks: an endpoint for every event posts to ${receiver.url}`);
      await step(['11'], 'trigger → inbox latency, idle', () => idleLatency(ectx));
      await step(['8'], 'trigger accept', () => triggerAccept(ectx));
      await step(['9', '10'], 'fan-out', () =>
        fanOuts(ectx, { inbox: wants(options, '9') || wants(options, '12'), webhook: wants(options, '10') }, sink),
      );
      await step(['12'], 'two APIs and two workers', () =>
        twoByTwo(ectx, results.find((r) => r.id === '9')?.engine?.[0]),
      );
      await step(['13'], 'a second worker, provider-bound deliveries', () => providerBoundWorkers(ectx, sink));
      await step(['14'], 'sustained end to end', () => sustained(ectx));
      await step(['15'], 'fan-out beside a retention purge', () => fanOutBesidePurge(ectx, options.sizes.pairs));
    } finally {
      await sink.close();
      await receiver?.close();
    }
  }
  await step(['2'], 'add subscriptions', () => addSubscriptions(ctx));
  await step(['3'], 'bulk preferences', () => bulkPreferences(ctx));
  return results.sort((a, b) => a.id.localeCompare(b.id));
}

/** The generated parts of BENCHMARKS.md sit between markers, one pair per engine; the rest is written by hand. */
const markers = (engine: string) => [`<!-- bench:${engine}:start -->`, `<!-- bench:${engine}:end -->`] as const;

function writeOutputs(options: BenchOptions, report: string, json: unknown) {
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const engine = options.embedded ? 'embedded' : 'postgres';
  const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${options.quick ? 'quick' : 'full'}-${engine}`;
  writeFileSync(join(dir, `${name}.md`), report);
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(json, null, 2)}\n`);
  log(`results: bench/results/${name}.md`);
  if (!options.writeBenchmarks) return;
  const file = join(ROOT, 'BENCHMARKS.md');
  const current = readFileSync(file, 'utf8');
  const [start, end] = markers(engine);
  const from = current.indexOf(start);
  const to = current.indexOf(end);
  if (from < 0 || to < from) throw new Error(`BENCHMARKS.md lacks the ${start} … ${end} markers`);
  writeFileSync(file, `${current.slice(0, from + start.length)}\n${report}${current.slice(to)}`);
  log('BENCHMARKS.md updated');
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const tmp = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  const dataDir = join(tmp, 'data');
  const secretKey = randomBytes(32).toString('base64url');
  const seeding: RunInfo['seeding'] = [];
  const loadStart = loadavg();
  const servers: Server[] = [];
  let stats: pg.Client | undefined;
  try {
    const prepared = await prepareDatabase(options, dataDir, secretKey, seeding, timed);
    const engine = options.embedded ? `embedded PGlite (${prepared.postgres})` : prepared.postgres;
    if (options.embedded) cpSync(join(dataDir, 'pglite'), join(tmp, 'baseline-pglite'), { recursive: true });
    const baseline = await startServer({
      name: 'baseline',
      nodeArgs: [join(ROOT, 'dist', 'bench', 'baseline-server.js')],
      env: {
        PATH: process.env.PATH,
        BASELINE_WORKSPACE_ID: String(prepared.mainId),
        ...(options.embedded
          ? { BASELINE_PGLITE_DIR: join(tmp, 'baseline-pglite') }
          : { BASELINE_DATABASE_URL: options.databaseUrl }),
      },
      logFile: join(tmp, 'baseline.log'),
      readyPath: '/readyz',
    });
    servers.push(baseline);
    const herald = new HeraldProcess(options, tmp, dataDir, secretKey);
    servers.push(await herald.start());
    if (!options.embedded) {
      stats = new pg.Client({ connectionString: options.databaseUrl, application_name: 'herald-bench-stats' });
      await stats.connect();
    }
    const statsClient = stats;
    const api = (credentials: { workspace: string; api_key: string; service_token: string }): ApiContext => ({
      url: herald.server.url,
      workspace: credentials.workspace,
      apiKey: credentials.api_key,
      serviceToken: credentials.service_token,
      managementPrefix: MANAGEMENT_PREFIX,
    });
    const context = (seeds: SeedOutcome[]): ScenarioContext => ({
      ...(statsClient ? { databaseCpu: () => databaseCpuMs((text) => statsClient.query<{ pid: number }>(text)) } : {}),
      herald: herald.server,
      baseline,
      sampler: herald.sampler,
      main: api(prepared.main),
      scale: api(prepared.scale),
      pair: { key: prepared.main.workspace_key, secret: prepared.main.workspace_secret },
      sizes: options.sizes,
      seeds,
      log,
    });

    const { value: mainSeeds } = await timed('seeding through the API', () =>
      seedMainThroughApi(api(prepared.main), options.sizes, log),
    );
    seeding.push(...mainSeeds);
    log(`  Herald VmHWM after seeding: ${herald.sampler.highWaterMark().toFixed(1)} MB`);
    // What was seeded through the API (objects, subscriptions) is analyzed as autovacuum would have
    // (a server with autovacuum off, as on the development machine, never does): without statistics
    // the planner misjudges pages of a 100,000-subscriber object.
    if (statsClient) await timed('analyze', () => statsClient.query('analyze'));
    const workers = new WorkerPool(options, tmp, secretKey);
    let secondApi: HeraldProcess | undefined;
    const engineContext = async (events?: EventReceiver): Promise<EngineContext> => ({
      ...context(mainSeeds),
      ...(events ? { events } : {}),
      embedded: options.embedded,
      workers: (count) => (options.embedded ? Promise.resolve() : workers.ensure(count)),
      enginePids: () => [herald.server.pid, ...(secondApi ? [secondApi.server.pid] : []), ...workers.pids()],
      workerPeaks: (reset) => workers.peaks(reset),
      secondApi: async () => {
        if (options.embedded) return undefined;
        if (secondApi) return secondApi.server;
        secondApi = new HeraldProcess(options, tmp, dataDir, secretKey, 'herald-2');
        return secondApi.start();
      },
      ...(statsClient
        ? {
            database: { url: options.databaseUrl, mainWorkspaceId: prepared.mainId },
            query: <R>(text: string, values?: unknown[]) =>
              statsClient.query(text, values) as unknown as Promise<{ rows: R[] }>,
            listen: async (onPayload: (payload: string) => void) => {
              const listener = new pg.Client({
                connectionString: options.databaseUrl,
                application_name: 'herald-bench-stats',
              });
              await listener.connect();
              listener.on('notification', (n) => n.payload !== undefined && onPayload(n.payload));
              await listener.query('listen herald_inbox');
              return () => listener.end();
            },
          }
        : {}),
    });
    let results: ScenarioResult[];
    try {
      results = await runScenarios(options, context(mainSeeds), engineContext);
    } finally {
      if (secondApi) await secondApi.stop();
      await workers.stop();
    }
    if (wants(options, '7')) {
      let scaleSeeds: SeedOutcome[] = [];
      if (mainSeeds.find((seed) => seed.what.startsWith('objects'))?.available) {
        servers.splice(servers.indexOf(herald.server), 1);
        await herald.stop();
        await seedScaleUsers(options, dataDir, prepared.scaleId, seeding, timed);
        servers.push(await herald.start());
        scaleSeeds = (
          await timed('seeding scenario 7 through the API', () =>
            seedScaleThroughApi(api(prepared.scale), options.sizes, log),
          )
        ).value;
        seeding.push(...scaleSeeds);
      }
      log('scenario 7: subscription cost vs object size');
      results.push(report7(await subscriptionScaling(context(scaleSeeds))));
    }
    servers.splice(servers.indexOf(herald.server), 1);
    await herald.stop();
    for (const server of servers.splice(0).reverse()) await stopServer(server);
    const info: RunInfo = {
      date: new Date().toISOString(),
      mode: options.quick ? 'quick' : 'full',
      engine,
      commit: gitCommit(),
      logLevel: options.logLevel,
      machine: machine(prepared.postgres),
      loadAverage: { start: loadStart, end: loadavg() },
      seeding,
      heraldPeakRssMb: herald.peakRssMb,
      durationSeconds: (Date.now() - started) / 1000,
    };
    const checks = checkTargets(results, herald.peakRssMb, options.embedded);
    const report = renderReport(info, results, checks);
    process.stdout.write(`\n${report}`);
    writeOutputs(options, report, { info, results, checks });
  } catch (error) {
    // The processes' logs go with the temporary folder: what they said last is printed first.
    for (const file of readdirSync(tmp).filter((name) => name.endsWith('.log'))) {
      const tail = readFileSync(join(tmp, file), 'utf8').split('\n').slice(-30).join('\n');
      process.stderr.write(`--- last lines of ${file}\n${tail}\n`);
    }
    throw error;
  } finally {
    await stats?.end();
    for (const server of servers.reverse()) await stopServer(server);
    rmSync(tmp, { recursive: true, force: true });
  }
}

const report7 = (result: ScenarioResult) => {
  if (result.status !== 'measured')
    log(`  7: ${result.status === 'unavailable' ? 'not available in this build' : 'failed'}: ${result.reason}`);
  return result;
};

/** With --status-webhooks the endpoint is the harness's receiver on 127.0.0.1, which the outbound guard refuses unless told. */
const outboundFor = (options: BenchOptions) => (options.statusWebhooks ? { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' } : {});

/**
 * The Herald process under test. It is started twice when scenario 7 runs (stopped while that
 * scenario's data is seeded); its peak RSS is the largest either process reached.
 */
class HeraldProcess {
  #server: Server | undefined;
  #sampler: RssSampler | undefined;
  peakRssMb = 0;

  constructor(
    private readonly options: BenchOptions,
    private readonly tmp: string,
    private readonly dataDir: string,
    private readonly secretKey: string,
    private readonly logName = 'herald',
  ) {}

  get server(): Server {
    if (!this.#server) throw new Error('Herald is not running');
    return this.#server;
  }

  get sampler(): RssSampler {
    if (!this.#sampler) throw new Error('Herald is not running');
    return this.#sampler;
  }

  async start(): Promise<Server> {
    const { options } = this;
    const profileDir = join(ROOT, 'bench', 'results', 'profiles');
    if (options.profile) mkdirSync(profileDir, { recursive: true });
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.DATABASE_URL;
    this.#server = await startServer({
      name: 'Herald',
      nodeArgs: [
        ...startFlags(),
        ...(options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
        join(ROOT, 'dist', 'src', 'main.js'),
      ],
      env: {
        ...env,
        ...(options.embedded ? {} : { DATABASE_URL: options.databaseUrl }),
        DATA_DIR: this.dataDir,
        SECRET_KEY: this.secretKey,
        LOG_LEVEL: options.logLevel,
        MANAGEMENT_PREFIX,
        // The load generator is one credential sending thousands of requests a second: the
        // per-credential rate limit would answer 429 and measure nothing else.
        RATE_LIMIT_MAX: '0',
        ...outboundFor(options),
        // On PostgreSQL the API and the workers run apart (`herald serve` / `herald worker`): the
        // engine scenarios start their workers themselves. Embedded storage is one process.
        ...(options.embedded ? {} : { HERALD_ROLE: 'api' }),
      },
      logFile: join(this.tmp, `${this.logName}.log`),
      readyPath: '/readyz',
    });
    this.#sampler = new RssSampler(this.#server.pid);
    return this.#server;
  }

  async stop() {
    if (!this.#server || !this.#sampler) return;
    this.peakRssMb = Math.max(this.peakRssMb, this.#sampler.highWaterMark(), this.#sampler.peak());
    this.#sampler.stop();
    await stopServer(this.#server);
    this.#server = undefined;
    this.#sampler = undefined;
  }
}

/** Worker processes (`HERALD_ROLE=worker`, as `herald worker` runs), started as the engine scenarios need them. */
class WorkerPool {
  #running: { server: Server; sampler: RssSampler }[] = [];
  peakRssMb = 0;

  constructor(
    private readonly options: BenchOptions,
    private readonly tmp: string,
    private readonly secretKey: string,
  ) {}

  async ensure(count: number) {
    while (this.#running.length > count) {
      const last = this.#running.pop()!;
      this.peakRssMb = Math.max(this.peakRssMb, last.sampler.highWaterMark(), last.sampler.peak());
      last.sampler.stop();
      await stopServer(last.server);
    }
    while (this.#running.length < count) {
      const index = this.#running.length + 1;
      const profileDir = join(ROOT, 'bench', 'results', 'profiles');
      if (this.options.profile) mkdirSync(profileDir, { recursive: true });
      const env: Record<string, string | undefined> = { ...process.env };
      delete env.PORT;
      const server = await startBackground({
        name: `worker ${index}`,
        nodeArgs: [
          ...startFlags(),
          ...(this.options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
          join(ROOT, 'dist', 'src', 'main.js'),
        ],
        env: {
          ...env,
          DATABASE_URL: this.options.databaseUrl,
          SECRET_KEY: this.secretKey,
          LOG_LEVEL: this.options.logLevel,
          HERALD_ROLE: 'worker',
          ...outboundFor(this.options),
        },
        logFile: join(this.tmp, `worker-${index}-${Date.now()}.log`),
        readyText: 'Herald worker started',
      });
      this.#running.push({ server, sampler: new RssSampler(server.pid) });
    }
  }

  pids() {
    return this.#running.map((w) => w.server.pid);
  }

  peaks(reset = false) {
    return this.#running.map((w) => {
      const peak = w.sampler.peak();
      this.peakRssMb = Math.max(this.peakRssMb, peak);
      if (reset) w.sampler.reset();
      return peak;
    });
  }

  async stop() {
    await this.ensure(0);
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
