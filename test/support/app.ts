import { readFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDependencies } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { createDatabase, type DatabaseKind, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { assertNoCredentialsInLogs } from './secrets.js';
import { createPrivateDatabase, type PrivateDatabase } from './private-database.js';
import { startTestEngine, type TestEngine, type TestEngineOptions } from './engine.js';

export const TEST_SECRET_KEY = 'test-secret-key-test-secret-key-0123456789';

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  databaseKind: DatabaseKind;
  /** The embedded database itself (absent on PostgreSQL): another app over the same database needs it. */
  pglite: AppDependencies['pglite'];
  config: Config;
  secretBox: SecretBox;
  /** SQL statements sent since the last `queries.reset()`; `maxParameters`: the most any of them bound. */
  queries: { count: number; sql: string[]; maxParameters: number; reset(): void };
  /** Every log line the app wrote, parsed. */
  logs: Record<string, unknown>[];
  /** The durable queue and worker, when built with `engine` (test/support/engine.ts). */
  engineRuntime?: TestEngine;
  close(): Promise<void>;
}

let snapshot: Promise<Blob | undefined> | undefined;

/** The migrated embedded database the global setup dumped, read once per worker (undefined when none). */
function migratedSnapshot(): Promise<Blob | undefined> {
  snapshot ??= (async () => {
    const file = inject('embeddedSnapshot');
    return file ? new Blob([await readFile(file)]) : undefined;
  })();
  return snapshot;
}

/**
 * Builds the real app over a real database: PostgreSQL when DATABASE_URL is set
 * (already migrated by the global setup), otherwise a fresh in-memory PGlite of its own, loaded
 * from the migrated dump the global setup made (migrating again then finds nothing to do).
 */
export async function buildTestApp(
  env: Record<string, string> = {},
  options: {
    beforeReady?: (app: FastifyInstance) => void;
    credentialListener?: AppDependencies['credentialListener'];
    engine?: TestEngineOptions;
  } = {},
): Promise<TestApp> {
  // Rate limiting is off in tests except where a test turns it on (test/security/rate-limit.test.ts).
  const config = loadConfig({
    LOG_LEVEL: 'info',
    SECRET_KEY: TEST_SECRET_KEY,
    DATABASE_URL: process.env.DATABASE_URL,
    RATE_LIMIT_MAX: '0',
    ...env,
  });
  const queries = {
    count: 0,
    sql: [] as string[],
    maxParameters: 0,
    reset() {
      this.count = 0;
      this.sql = [];
      this.maxParameters = 0;
    },
  };
  const handle = createDatabase({
    url: config.DATABASE_URL,
    dataDir: 'memory://',
    loadDataDir: config.DATABASE_URL ? undefined : await migratedSnapshot(),
    poolSize: 5,
    timeoutMs: config.DATABASE_TIMEOUT_MS,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    onQuery: (event) => {
      queries.count += 1;
      queries.sql.push(event.query.sql);
      queries.maxParameters = Math.max(queries.maxParameters, event.query.parameters.length);
    },
  });
  const { db, kind: databaseKind } = handle;
  if (databaseKind === 'embedded') await migrateToLatest(db);
  const logs: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      callback();
    },
  });
  const secretBox = new SecretBox(TEST_SECRET_KEY);
  const engineLog = {
    error: (object: object, message: string) => logs.push({ level: 50, ...object, msg: message }),
  };
  const engineRuntime = options.engine
    ? await startTestEngine(handle, config.DATABASE_URL, secretBox, engineLog, options.engine)
    : undefined;
  const app = await buildApp({
    queue: engineRuntime?.queue,
    config,
    db,
    databaseKind,
    pglite: handle.pglite,
    secretBox,
    logStream,
    credentialListener: options.credentialListener,
  });
  options.beforeReady?.(app);
  await app.ready();
  queries.reset();
  return {
    app,
    db,
    databaseKind,
    pglite: handle.pglite,
    config,
    secretBox,
    queries,
    logs,
    engineRuntime,
    async close() {
      await app.close();
      await engineRuntime?.stop();
      await db.destroy();
    },
  };
}

/** One app for the whole file, closed after it; whatever the file did, no credential reached its logs. */
export function useTestApp(
  env: Record<string, string> = {},
  options: Parameters<typeof buildTestApp>[1] & {
    /**
     * A database of its own on PostgreSQL (test/support/private-database.ts). The test engines of files running at
     * the same time share the shared database's tables, each with a pg-boss schema of its own: a file that waits
     * for delivery-status webhook events needs it, or another file's webhook relay may move its events to that
     * file's queue (in a deployment every worker shares one queue).
     */
    privateDatabase?: boolean;
  } = {},
): () => TestApp {
  let testApp: TestApp | undefined;
  let database: PrivateDatabase | undefined;
  beforeAll(async () => {
    const { privateDatabase, ...buildOptions } = options;
    if (privateDatabase) database = await createPrivateDatabase();
    testApp = await buildTestApp(database?.url ? { DATABASE_URL: database.url, ...env } : env, buildOptions);
  });
  afterAll(async () => {
    await testApp?.close();
    await database?.drop();
    if (testApp) assertNoCredentialsInLogs(testApp.logs);
  });
  return () => {
    if (!testApp) throw new Error('test app not built yet');
    return testApp;
  };
}
