import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import pino from 'pino';
import { buildApp } from './app.js';
import { capturingProviders } from './channels/capture.js';
import { providers as registeredProviders } from './channels/registry.js';
import { renderTemplate } from './channels/rendering.js';
import { loadConfig } from './config.js';
import { SecretBox } from './crypto/secret-box.js';
import type { Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { guardParameterCount, HeraldPGliteDialect } from './db/pglite-dialect.js';
import type { Database } from './db/types.js';
import { parseDuration } from './domain/durations.js';
import { Engine } from './engine/engine.js';
import { ALL_QUEUES, Queue } from './engine/queue.js';
import { bootstrapWorkspace } from './services/workspaces.js';
import type { Delivery, HeraldClock, StartHeraldOptions, TestHerald } from './testing-types.js';
import type * as Contract from './testing-types.js';
import { importWorkspaceFiles } from './workspace-files.js';

/**
 * Herald in the customer's tests (docs/testing-your-notifications.md): the same app, engine and worker in
 * the calling process on in-memory embedded storage. Only two things differ from a running Herald: the
 * clock, which moves when the test says, and the provider transport, which records what would have been
 * sent instead of sending it.
 */

export type { Delivery, HeraldClock, StartHeraldOptions, TestHerald } from './testing-types.js';

/**
 * Migrated storage with the queue's tables, made once per process: a later start takes the emptied
 * database a closed instance left (`spare`), else loads a copy of this dump (no initdb, no migrations).
 */
interface Storage {
  dump: Blob;
  /** Every table the migrations leave empty: what `close()` empties again for the next start. */
  tables: string[];
}
let storage: Promise<{ storage: Storage; fresh: PGlite | undefined }> | undefined;
let spare: PGlite | undefined;
/** One secret key per process: the emulator's workspaces are in memory and die with it. */
const SECRET_KEY = randomBytes(32).toString('base64url');
const POLL_MS = 5;
/** The longest one `advance` takes in real time before it fails, saying what is stuck. */
const ADVANCE_TIMEOUT_MS = 60_000;
/**
 * The timers as this module found them. A test that fakes timers afterwards (vi.useFakeTimers, jest's, sinon's)
 * stops the queue's polling, which runs on them: `advance` checks for that and keeps its own deadline on these, so
 * it fails instead of waiting on a timer that never fires.
 */
const realSetTimeout = globalThis.setTimeout;
const realClearTimeout = globalThis.clearTimeout;
const realNow = Date.now;
const PARSERS = { 20: Number, 1700: Number };

async function migrate(): Promise<{ storage: Storage; fresh: PGlite }> {
  const pglite = guardParameterCount(new PGlite('memory://', { parsers: PARSERS }));
  const db = new Kysely<Database>({ dialect: new HeraldPGliteDialect(pglite) });
  await migrateToLatest(db);
  const queue = new Queue({ pglite });
  await queue.start();
  await queue.stop(1000);
  const { rows } = await sql<{
    name: string;
    filled: boolean;
  }>`select format('%I.%I', table_schema, table_name) as name,
      (xpath('/row/c/text()', query_to_xml(format('select exists (select from %I.%I) as c', table_schema, table_name),
        false, true, '')))[1]::text::boolean as filled
    from information_schema.tables where table_schema in ('public', 'pgboss') and table_type = 'BASE TABLE'`.execute(
    db,
  );
  const tables = rows.filter((row) => !row.filled).map((row) => row.name);
  return { storage: { dump: await pglite.dumpDataDir('none'), tables }, fresh: pglite };
}

/** An empty migrated database: the first start's own, a closed instance's, or a copy of the dump. */
async function openStorage(): Promise<{ pglite: PGlite; storage: Storage }> {
  let first = false;
  storage ??= ((first = true), migrate());
  storage.catch(() => (storage = undefined));
  const made = await storage;
  if (first && made.fresh) {
    const pglite = made.fresh;
    made.fresh = undefined;
    return { pglite, storage: made.storage };
  }
  if (spare) {
    const pglite = spare;
    spare = undefined;
    return { pglite, storage: made.storage };
  }
  const pglite = guardParameterCount(new PGlite('memory://', { parsers: PARSERS, loadDataDir: made.storage.dump }));
  return { pglite, storage: made.storage };
}

/** Empties a closed instance's database and keeps it for the next start (one is kept; others are closed). */
async function release(pglite: PGlite, db: Db, tables: string[]) {
  if (spare) return pglite.close();
  try {
    await sql`truncate ${sql.raw(tables.join(', '))} restart identity cascade`.execute(db);
    spare = pglite;
  } catch {
    await pglite.close();
  }
}

const instant = (value: Date | string | number) => new Date(value).getTime();

/** Jobs running, or due by the database's time. */
async function busyJobs(db: Db, schema: string) {
  const { rows } = await sql<{ busy: number }>`select count(*)::int as busy from ${sql.id(schema, 'job')}
    where state = 'active' or (state in ('created', 'retry') and start_after <= now())`.execute(db);
  return rows[0]!.busy;
}

/** How long until the next job falls due by the database's time (ms), or undefined when none waits. */
async function nextDueIn(db: Db, schema: string) {
  const { rows } = await sql<{
    ms: number | null;
  }>`select (extract(epoch from min(start_after) - now()) * 1000)::float8 as ms
    from ${sql.id(schema, 'job')} where state in ('created', 'retry')`.execute(db);
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, Number(ms));
}

function makeClock(db: Db, queue: Queue, startAt: number | undefined) {
  let ahead = startAt === undefined ? 0 : startAt - Date.now();
  const schema = queue.schema;
  const wakeAll = () => {
    for (const name of ALL_QUEUES) queue.wake(db, name);
  };
  /** `work`, or the advance's failure once its deadline passes first (a query behind a stuck job waits too). */
  const beforeDeadline = <T>(work: Promise<T>, deadline: number, stuck: () => string): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = realSetTimeout(
        () =>
          reject(
            new Error(
              `herald/testing: clock.advance gave up after ${ADVANCE_TIMEOUT_MS / 1000} s of real time: ${stuck()}`,
            ),
          ),
        Math.max(0, deadline - realNow()),
      );
    });
    return Promise.race([work, late]).finally(() => realClearTimeout(timer));
  };
  const drain = async (deadline: number) => {
    let busy = 0;
    const stuck = () =>
      busy > 0 ? `${busy} job(s) still running or due, never finished` : 'the database did not answer';
    while ((busy = await beforeDeadline(busyJobs(db, schema), deadline, stuck)) > 0) {
      if (realNow() > deadline)
        throw new Error(
          `herald/testing: clock.advance gave up after ${ADVANCE_TIMEOUT_MS / 1000} s of real time: ${stuck()}`,
        );
      await new Promise((resolve) => realSetTimeout(resolve, POLL_MS));
    }
  };
  /** Moves Herald's time by `ms`: every waiting job is that much nearer its time by the database's clock. */
  const shift = async (ms: number) => {
    if (ms <= 0) return;
    ahead += ms;
    await sql`update ${sql.id(schema, 'job')} set start_after = start_after - make_interval(secs => ${ms / 1000})
      where state in ('created', 'retry')`.execute(db);
    wakeAll();
  };
  const clock: HeraldClock = {
    now: () => Date.now() + ahead,
    async advance(duration) {
      const ms = typeof duration === 'number' ? duration : parseDuration(duration);
      if (ms === undefined || !Number.isFinite(ms) || ms < 0)
        throw new TypeError(`clock.advance takes milliseconds or a duration like 1d2h30m, not ${String(duration)}`);
      if (globalThis.setTimeout !== realSetTimeout)
        throw new Error(
          'herald/testing: clock.advance cannot run under fake timers (vi.useFakeTimers, jest.useFakeTimers, sinon): ' +
            "Herald's queue polls on real timers; restore them (vi.useRealTimers()) and move Herald's time with clock.advance",
        );
      // One deadline for the whole advance: a job that never finishes, or one that keeps falling due again, fails it.
      const deadline = realNow() + ADVANCE_TIMEOUT_MS;
      let left = ms;
      // Step from one due time to the next, finishing the work of each before the next begins.
      for (;;) {
        await drain(deadline);
        const next = await beforeDeadline(nextDueIn(db, schema), deadline, () => 'the database did not answer');
        const step = next === undefined ? left : Math.min(next, left);
        await shift(step);
        left -= step;
        if (left <= 0) break;
      }
      await drain(deadline);
    },
  };
  return { clock, ahead: () => ahead };
}

/** Starts Herald in this process: a workspace, its credentials, a clock the test moves and the deliveries it records. */
export const startHerald: typeof Contract.startHerald = async (
  options: StartHeraldOptions = {},
): Promise<TestHerald> => {
  const opened = await openStorage();
  const { pglite } = opened;
  const config = loadConfig({
    SECRET_KEY,
    LOG_LEVEL: options.logLevel ?? 'silent',
    RATE_LIMIT_MAX: '0',
    HOST: '127.0.0.1',
    PORT: '0',
    ...options.env,
  });
  // A Kysely of its own per start: caches kept per database (db/per-database.ts) start empty with it.
  const db = new Kysely<Database>({ dialect: new HeraldPGliteDialect(pglite) });
  const secretBox = new SecretBox(SECRET_KEY);
  let aheadMs = () => 0;
  const queue = new Queue({ pglite, pollingIntervalSeconds: 0.5, aheadMs: () => aheadMs() });
  const cleanup: (() => Promise<unknown>)[] = [() => release(pglite, db, opened.storage.tables)];
  const close = async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup.length = 0;
  };
  try {
    await queue.start();
    cleanup.push(() => queue.stop(5000));
    const { clock, ahead } = makeClock(db, queue, options.now === undefined ? undefined : instant(options.now));
    aheadMs = ahead;
    const app = await buildApp({ config, db, databaseKind: 'embedded', pglite, secretBox, queue });
    cleanup.push(() => app.close());
    await app.listen({ port: 0, host: config.HOST });
    const root = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const baseUrl = `${root}/`;
    const managementUrl = `${root}${config.MANAGEMENT_PREFIX}/`;

    const recorded: Delivery[] = [];
    const networked = new Set(options.network ?? []);
    const log = pino({ level: config.LOG_LEVEL });
    const engine = new Engine({
      db,
      queue,
      secretBox,
      render: (request, handle, memo) => renderTemplate(handle ?? db, request, memo),
      providers: capturingProviders(registeredProviders, {
        record: (delivery) => recorded.push(delivery),
        networked: (vendor) => networked.has(vendor.id) || (vendor.nickname !== null && networked.has(vendor.nickname)),
        now: clock.now,
      }),
      log,
      now: clock.now,
      preferenceLinks: { signer: secretBox, publicUrl: baseUrl },
    });
    await engine.start();
    // No table upkeep (src/db/table-upkeep.ts), which `npm start` runs on its embedded database: this one lives for
    // a test file at most, is emptied at each close, and never grows the dead rows that upkeep reclaims; a check would
    // take the one connection at a moment the test did not choose, and its timer would run under a suite's fake timers.

    const credentials = await bootstrapWorkspace(db, secretBox, { slug: options.workspace ?? 'test', actor: null });
    if (options.load)
      await importWorkspaceFiles(
        { managementUrl, serviceToken: credentials.service_token, workspace: credentials.workspace },
        options.load,
      );
    return {
      baseUrl,
      managementUrl,
      serviceToken: credentials.service_token,
      apiKey: credentials.api_key,
      workspace: credentials.workspace,
      workspaceKey: credentials.workspace_key,
      workspaceSecret: credentials.workspace_secret,
      clock,
      deliveries: () => recorded.slice(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
};
