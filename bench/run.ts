/**
 * `npm run bench`: seeds a data set, starts Herald and a bare Fastify + pg baseline as child
 * processes, loads both from here with autocannon over 127.0.0.1, and writes the figures.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { parseOptions, wants, type BenchOptions } from './options.js';
import { prepareDatabase, type Timed } from './prepare.js';
import { databaseCpuMs, RssSampler, startServer, stopServer, type Server } from './processes.js';
import { checkTargets, renderReport, type RunInfo } from './report.js';
import { readPath, listWorkspaceKeys } from './scenarios-read.js';
import { addSubscriptions, bulkPreferences, segmentDryRun, subscriptionScaling } from './scenarios-write.js';
import type { ScenarioContext, ScenarioResult } from './measure.js';
import { seedThroughApi, type ApiContext } from './seed-api.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MANAGEMENT_PREFIX = '/management';
const started = Date.now();
const log = (line: string) => process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);

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

async function runScenarios(options: BenchOptions, ctx: ScenarioContext): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const step = async (ids: string[], title: string, work: () => Promise<ScenarioResult | ScenarioResult[]>) => {
    if (!ids.some((id) => wants(options, id))) return;
    log(`scenario ${ids.join(' + ')}: ${title}`);
    const outcome = await work();
    for (const result of Array.isArray(outcome) ? outcome : [outcome]) {
      results.push(result);
      if (result.status !== 'measured') log(`  ${result.id}: ${result.status === 'unavailable' ? 'not available in this build' : 'failed'}: ${result.reason}`);
    }
  };
  await step(['1', '6'], 'GET user, Bearer and signed, against the baseline', () => readPath(ctx, { bearer: wants(options, '1'), signed: wants(options, '6') }));
  await step(['5'], 'list workspace keys', () => listWorkspaceKeys(ctx));
  await step(['4'], 'segment dry run', () => segmentDryRun(ctx));
  await step(['2'], 'add subscriptions', () => addSubscriptions(ctx));
  await step(['3'], 'bulk preferences', () => bulkPreferences(ctx));
  await step(['7'], 'subscription cost vs object size', () => subscriptionScaling(ctx));
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
  const secretKey = randomBytes(32).toString('base64url');
  const seeding: RunInfo['seeding'] = [];
  const loadStart = loadavg();
  const servers: Server[] = [];
  let stats: pg.Client | undefined;
  try {
    const prepared = await prepareDatabase(options, join(tmp, 'data'), secretKey, seeding, timed);
    const engine = options.embedded ? `embedded PGlite (${prepared.postgres})` : prepared.postgres;
    const inherited = { ...process.env };
    delete inherited.DATABASE_URL;
    const baselineEnv = options.embedded
      ? { BASELINE_PGLITE_DIR: join(tmp, 'baseline-pglite') }
      : { BASELINE_DATABASE_URL: options.databaseUrl };
    if (options.embedded) cpSync(join(tmp, 'data', 'pglite'), join(tmp, 'baseline-pglite'), { recursive: true });
    const baseline = await startServer({
      name: 'baseline',
      nodeArgs: [join(ROOT, 'dist', 'bench', 'baseline-server.js')],
      env: { PATH: process.env.PATH, BASELINE_WORKSPACE_ID: String(prepared.mainId), ...baselineEnv },
      logFile: join(tmp, 'baseline.log'),
      readyPath: '/readyz',
    });
    servers.push(baseline);
    const profileDir = join(ROOT, 'bench', 'results', 'profiles');
    if (options.profile) mkdirSync(profileDir, { recursive: true });
    const herald = await startServer({
      name: 'Herald',
      nodeArgs: [...(options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), join(ROOT, 'dist', 'src', 'main.js')],
      env: {
        ...inherited,
        ...(options.embedded ? {} : { DATABASE_URL: options.databaseUrl }),
        DATA_DIR: join(tmp, 'data'),
        SECRET_KEY: secretKey,
        LOG_LEVEL: options.logLevel,
        MANAGEMENT_PREFIX,
      },
      logFile: join(tmp, 'herald.log'),
      readyPath: '/readyz',
    });
    servers.push(herald);
    const sampler = new RssSampler(herald.pid);
    const api = (credentials: { workspace: string; api_key: string; service_token: string }): ApiContext => ({
      url: herald.url,
      workspace: credentials.workspace,
      apiKey: credentials.api_key,
      serviceToken: credentials.service_token,
      managementPrefix: MANAGEMENT_PREFIX,
    });
    const ctxBase = { main: api(prepared.main), scale: api(prepared.scale) };
    const { value: seeds } = await timed('seeding through the API', () => seedThroughApi(ctxBase.main, ctxBase.scale, options.sizes, log));
    seeding.push(...seeds);
    if (!options.embedded) {
      stats = new pg.Client({ connectionString: options.databaseUrl, application_name: 'herald-bench-stats' });
      await stats.connect();
    }
    const statsClient = stats;
    const ctx: ScenarioContext = {
      ...(statsClient ? { databaseCpu: () => databaseCpuMs((text) => statsClient.query<{ pid: number }>(text)) } : {}),
      herald,
      baseline,
      sampler,
      ...ctxBase,
      pair: { key: prepared.main.workspace_key, secret: prepared.main.workspace_secret },
      sizes: options.sizes,
      seeds,
      log,
    };
    const results = await runScenarios(options, ctx);
    const heraldPeakRssMb = Math.max(sampler.highWaterMark(), sampler.peak());
    sampler.stop();
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
      heraldPeakRssMb,
      durationSeconds: (Date.now() - started) / 1000,
    };
    const checks = checkTargets(results, heraldPeakRssMb, options.embedded);
    const report = renderReport(info, results, checks);
    process.stdout.write(`\n${report}`);
    writeOutputs(options, report, { info, results, checks });
  } finally {
    await stats?.end();
    for (const server of servers.reverse()) await stopServer(server);
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
