import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { SecretBox } from '../src/crypto/secret-box.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { findWorkspaceBySlug } from '../src/repositories/workspaces.js';
import { bootstrapWorkspace } from '../src/services/workspaces.js';
import { MAIN_WORKSPACE, userId } from './data.js';
import { runLoad, send } from './load.js';
import { cpuMs, startServer, stopServer } from './processes.js';
import { seedEngine, startSink, WORKFLOWS } from './scenarios-engine.js';
import { base, seedPreferenceCategories, type ApiContext } from './seed-api.js';
import { seedUsers } from './seed-sql.js';
import { addStatusWebhookEndpoint, eventsNote, eventsSettled, startEventReceiver } from './status-webhooks.js';

/**
 * Single-recipient triggers on embedded storage (issue #30 point 3): one Herald process on PGlite,
 * the trigger accept at c=10 and c=50, then until every accepted trigger's inbox message is written.
 * Beside req/s and latency: the process's CPU and PGlite's statements and transactions per trigger
 * (accepted, run and delivered), counted by bench/pglite-statements.ts inside the process.
 *
 *   npm run build && tsc -p tsconfig.bench.json && node dist/bench/embedded-triggers.js [--seconds 10] [--texts]
 *     [--connections 10,50] [--profile DIR] [--keep] [--status-webhooks]
 *
 * --profile writes a CPU profile of each level's load window (DIR/embedded-c<N>.cpuprofile; read it with
 * dist/bench/profile-summary.js). --keep leaves the PGlite data folder in place (its path is printed), for
 * EXPLAIN on the tables as the load left them. With --status-webhooks, a delivery-status webhook endpoint (every
 * event type) posts to a receiver here, and each step waits for its triggers' events before taking the CPU
 * (bench/status-webhooks.ts).
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '10,50' },
    users: { type: 'string', default: '2000' },
    texts: { type: 'boolean', default: false },
    profile: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'status-webhooks': { type: 'boolean', default: false },
  },
});
const seconds = Number(values.seconds);
const users = Number(values.users);
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Counts {
  statements: number;
  transactions: number;
  protocolMs: number;
  texts: Record<string, number>;
  textMs: Record<string, number>;
}

async function main() {
  const tmp = mkdtempSync(join(tmpdir(), 'herald-embedded-'));
  const dataDir = join(tmp, 'data');
  const countsFile = join(tmp, 'counts.json');
  const secretKey = randomBytes(32).toString('base64url');
  const sink = await startSink();
  const receiver = values['status-webhooks'] ? await startEventReceiver() : undefined;
  const { db } = createDatabase({ dataDir: join(dataDir, 'pglite') });
  await migrateToLatest(db);
  const credentials = await bootstrapWorkspace(db, new SecretBox(secretKey), { slug: MAIN_WORKSPACE, actor: null });
  await seedUsers(db, (await findWorkspaceBySlug(db, MAIN_WORKSPACE))!.id, 'user-', users);
  await db.destroy();
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.DATABASE_URL;
  const server = await startServer({
    name: 'Herald',
    nodeArgs: ['--import', join(ROOT, 'dist', 'bench', 'pglite-statements.js'), join(ROOT, 'dist', 'src', 'main.js')],
    env: {
      ...env,
      DATA_DIR: dataDir,
      SECRET_KEY: secretKey,
      LOG_LEVEL: 'warn',
      MANAGEMENT_PREFIX: '/management',
      RATE_LIMIT_MAX: '0',
      PGLITE_STATEMENTS_FILE: countsFile,
      PGLITE_STATEMENTS_TEXTS: values.texts ? '1' : '0',
      ...(values.profile ? { PGLITE_PROFILE_FILE: join(tmp, 'load.cpuprofile') } : {}),
      // The receiver is on 127.0.0.1, which the outbound guard refuses unless told.
      ...(receiver ? { OUTBOUND_ALLOWED_HOSTS: '127.0.0.1' } : {}),
    },
    logFile: join(tmp, 'herald.log'),
    readyPath: '/readyz',
  });
  const api: ApiContext = {
    url: server.url,
    workspace: credentials.workspace,
    apiKey: credentials.api_key,
    serviceToken: credentials.service_token,
    managementPrefix: '/management',
  };
  const counts = async (): Promise<Counts> => {
    await sleep(300);
    return existsSync(countsFile)
      ? (JSON.parse(readFileSync(countsFile, 'utf8')) as Counts)
      : { statements: 0, transactions: 0, protocolMs: 0, texts: {}, textMs: {} };
  };
  let next = 0;
  const trigger = () =>
    base(api, 'POST', '/trigger/', {
      workflow: WORKFLOWS.inbox,
      recipients: [userId(next++ % users)],
      data: { order: 'A-1' },
    });
  /** Seconds until a trigger sent now has its message written: everything accepted before it is done. */
  const drain = async (bound = 120) => {
    const started = Date.now();
    const sentinel = await send(api.url, trigger());
    const executionId = (sentinel.body as { message_id: string }).message_id;
    while (Date.now() - started < bound * 1000) {
      const found = await send(api.url, base(api, 'GET', `/v1/message/?execution_id=${executionId}&limit=1`));
      if (((found.body as { meta?: { count?: number } }).meta?.count ?? 0) >= 1) return (Date.now() - started) / 1000;
      await sleep(100);
    }
    return NaN;
  };
  try {
    const categories = await seedPreferenceCategories(api);
    if (categories.note) throw new Error(categories.note);
    const seeded =
      (await seedEngine(api, sink.url)) ?? (receiver ? await addStatusWebhookEndpoint(api, receiver.url) : undefined);
    if (seeded) throw new Error(seeded);
    const warm = await runLoad({ url: api.url, connections: 10, duration: 2, next: trigger });
    await drain();
    if (receiver) {
      const none = { posts: 0, events: 0, messages: 0, duplicates: 0, byType: {} };
      await eventsSettled(receiver, none, warm.requests - warm.non2xx + 1, 60, 1000);
    }
    log(
      `load average at start: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' / ')}`,
    );
    for (const connections of values.connections.split(',').map(Number)) {
      const cpuBefore = cpuMs(server.pid);
      const before = await counts();
      const eventsBefore = receiver?.counts();
      const started = Date.now();
      if (values.profile) process.kill(server.pid, 'SIGUSR2');
      const figures = await runLoad({ url: api.url, connections, duration: seconds, next: trigger });
      const loadSeconds = (Date.now() - started) / 1000;
      if (values.profile) {
        process.kill(server.pid, 'SIGUSR2');
        await sleep(1000);
        mkdirSync(values.profile, { recursive: true });
        copyFileSync(join(tmp, 'load.cpuprofile'), join(values.profile, `embedded-c${connections}.cpuprofile`));
      }
      const drained = await drain();
      const accepted = figures.requests - figures.non2xx + 1; // and the sentinel
      const eventsWaited =
        receiver && eventsBefore ? await eventsSettled(receiver, eventsBefore, accepted, 120) : undefined;
      const after = await counts();
      const per = (n: number) => n / accepted;
      log(
        [
          `c=${connections}: ${figures.requestsPerSec.toFixed(0)} req/s accepted, p50 ${figures.latency.p50} ms, p99 ${figures.latency.p99} ms,`,
          `${figures.non2xx} non-2xx, ${figures.errors} errors, ${figures.timeouts} timeouts;`,
          `${accepted} triggers delivered ${drained.toFixed(1)} s after the load (${(accepted / (loadSeconds + drained)).toFixed(0)}/s end to end);`,
          `per trigger: ${(((cpuMs(server.pid) - cpuBefore) * 1000) / accepted).toFixed(0)} µs CPU,`,
          `${per(after.statements - before.statements).toFixed(1)} statements, ${per(after.transactions - before.transactions).toFixed(2)} transactions,`,
          `${(((after.protocolMs - before.protocolMs) * 1000) / accepted).toFixed(0)} µs in PGlite's protocol calls;`,
          `load average ${loadavg()
            .map((n) => n.toFixed(2))
            .join(' / ')}`,
        ].join(' '),
      );
      if (receiver && eventsBefore)
        log(
          `  ${eventsNote(receiver, eventsBefore, accepted)}; ${eventsWaited === undefined ? 'NOT all in 120 s after the drain' : `all in ${eventsWaited.toFixed(1)} s after the drain (in the CPU above)`}`,
        );
      if (values.texts) {
        const delta = Object.entries(after.texts)
          .map(([text, n]) => [text, n - (before.texts[text] ?? 0)] as const)
          .filter(([, n]) => n > 0)
          .sort((a, b) => b[1] - a[1]);
        const µs = (text: string) => (((after.textMs[text] ?? 0) - (before.textMs[text] ?? 0)) * 1000) / accepted;
        log('  per trigger: statements, µs of CPU in PGlite, text');
        for (const [text, n] of delta)
          log(`  ${(n / accepted).toFixed(2).padStart(6)} ${µs(text).toFixed(0).padStart(6)}  ${text}`);
      }
    }
  } finally {
    await stopServer(server);
    await sink.close();
    await receiver?.close();
    if (!values.keep) rmSync(tmp, { recursive: true, force: true });
    else log(`kept ${tmp}`);
  }
}

main().catch((error) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
