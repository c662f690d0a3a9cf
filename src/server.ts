import type pino from 'pino';
import { outboundPolicyOf } from './channels/outbound.js';
import { surfaceUrls, tracingOn, type Config } from './config.js';
import { openDatabase, type OpenDatabase } from './db/open.js';
import { startTableUpkeep } from './db/table-upkeep.js';
import type { BootstrapResult } from './services/workspaces.js';

/**
 * The rest of the server's modules (the HTTP app, the engine, the queue, the providers), loaded while the database
 * opens: an embedded database's start (its WebAssembly, its files) overlaps their loading and compiling, most of a
 * start's time either way (BENCHMARKS.md, "Start time").
 */
const loadServerModules = () =>
  Promise.all([
    import('./app.js'),
    import('./channels/registry.js'),
    import('./channels/rendering.js'),
    import('./engine/engine.js'),
    import('./engine/queue.js'),
    import('./logger.js'),
    import('./services/workspaces.js'),
    import('./repositories/workspaces.js'),
    import('pino'),
  ]);

/**
 * The long-running process (docs/engine.md, "Process model"): the API, the worker, or both (the
 * default of `npm start`), and on the embedded database its table upkeep (src/db/table-upkeep.ts). SIGTERM stops
 * the upkeep, closes the API (in-flight requests finish), then stops the worker (in-flight jobs finish or go back
 * to the queue), then closes the database, and exits 0.
 */

const FIRST_WORKSPACE = 'staging';

export interface Roles {
  api: boolean;
  worker: boolean;
}

/** Printed to stdout once, outside the JSON log stream, so credentials never reach log storage. */
function printCredentials(config: Config, credentials: BootstrapResult) {
  const { base_url, management_url } = surfaceUrls(config);
  process.stdout.write(
    [
      '',
      `Herald created workspace "${credentials.workspace}". These credentials are shown once: store them now.`,
      `  service token (management): ${credentials.service_token}`,
      `  API key (base):             ${credentials.api_key}`,
      `  workspace key / secret:     ${credentials.workspace_key} / ${credentials.workspace_secret}`,
      '',
      `  curl -H "Authorization: ServiceToken ${credentials.service_token}" ${management_url}v1/workspace/`,
      `  curl -H "Authorization: Bearer ${credentials.api_key}" ${base_url}v1/user/some-user/`,
      '',
    ].join('\n') + '\n',
  );
}

function printHowToAuthenticate(config: Config) {
  const { base_url, management_url } = surfaceUrls(config);
  process.stdout.write(
    `Herald: base API ${base_url} (Authorization: Bearer <API_KEY>), management API ${management_url} ` +
      `(Authorization: ServiceToken <TOKEN>), reference ${base_url}docs. ` +
      `New credentials: npx herald bootstrap --workspace ${FIRST_WORKSPACE}\n`,
  );
}

export async function runHerald(config: Config, roles: Roles, tracing?: { shutdown(): Promise<void> }) {
  if (!config.DATABASE_URL && !(roles.api && roles.worker))
    throw new Error(
      'the embedded database serves one process: run API and worker together (npm start) or set DATABASE_URL',
    );
  // Read before anything opens: a malformed OUTBOUND_ALLOWED_HOSTS stops the start, naming the entry.
  const outbound = outboundPolicyOf(config);
  const opening = openDatabase(config);
  const modules = loadServerModules();
  // Whichever fails first is reported; the other's failure is not left unhandled.
  modules.catch(() => {});
  const database: OpenDatabase = await opening;
  const [
    { buildApp, buildStatusApp },
    { closeProviders, providers },
    { renderTemplate },
    { Engine },
    { Queue },
    { loggerOptions },
    { bootstrapWorkspace },
    { countWorkspaces },
    { default: pino },
  ] = await modules;
  const queue = new Queue({
    url: config.DATABASE_URL,
    pglite: database.pglite,
    poolSize: config.QUEUE_POOL_SIZE,
    pollingIntervalSeconds: config.QUEUE_POLLING_INTERVAL_SECONDS,
    schema: config.QUEUE_SCHEMA,
    jobExpireSeconds: config.QUEUE_JOB_EXPIRE_SECONDS,
    heartbeatSeconds: config.QUEUE_HEARTBEAT_SECONDS,
    superviseSeconds: config.QUEUE_SUPERVISE_SECONDS,
    tracing: tracingOn(config),
  });
  await queue.start();
  const app = roles.api
    ? await buildApp({
        config,
        db: database.db,
        databaseKind: database.kind,
        pglite: database.pglite,
        secretBox: database.secretBox,
        queue,
      })
    : undefined;
  // A worker alone still answers health checks and scrapes on PORT.
  const statusApp = roles.api
    ? undefined
    : await buildStatusApp({ config, db: database.db, databaseKind: database.kind, queue });
  const options = loggerOptions(config.LOG_LEVEL);
  const log =
    app?.log ??
    statusApp?.log ??
    pino(typeof options === 'object' ? (options as pino.LoggerOptions) : { enabled: false });
  const engine = roles.worker
    ? new Engine({
        db: database.db,
        queue,
        secretBox: database.secretBox,
        render: (request, db, memo) => renderTemplate(db ?? database.db, request, memo),
        providers,
        outbound,
        log,
        concurrency: config.WORKER_CONCURRENCY,
        fanoutPageSize: config.ENGINE_FANOUT_PAGE_SIZE,
        retentionDays: config.RETENTION_DAYS,
        preferenceLinks: { signer: database.secretBox, publicUrl: surfaceUrls(config).base_url },
        publicUrl: config.PUBLIC_URL,
      })
    : undefined;
  // pg-boss recovers from these (a lost connection, a failed upkeep pass) but they are worth seeing.
  queue.onError((error) => log.warn({ err: error }, 'queue error'));
  await engine?.start();
  // The embedded database's autovacuum (src/db/table-upkeep.ts), beside the worker in the process that owns the PGlite;
  // none on PostgreSQL.
  const upkeep = engine ? startTableUpkeep(database, log) : undefined;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) {
      log.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    closing = true;
    log.info({ signal }, 'shutting down: no new connections, finishing in-flight requests and jobs');
    try {
      // First: no VACUUM or ANALYZE starts while requests and jobs finish; a check under way ends after its current
      // statement, awaited only before the database closes.
      const upkeepStopped = upkeep?.stop();
      await app?.close();
      await statusApp?.close();
      await queue.stop(8000);
      // The SMTP pools' connections end with a QUIT, not a reset, once no delivery can use them.
      await closeProviders(providers);
      await upkeepStopped;
      await database.close();
      await tracing?.shutdown();
      log.info('shut down cleanly');
      process.exit(0);
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  if (app) {
    const firstStart = database.kind === 'embedded' && (await countWorkspaces(database.db)) === 0;
    await app.listen({ port: config.PORT, host: config.HOST });
    if (firstStart)
      printCredentials(
        config,
        await bootstrapWorkspace(database.db, database.secretBox, { slug: FIRST_WORKSPACE, actor: null }),
      );
    printHowToAuthenticate(config);
  } else {
    await statusApp!.listen({ port: config.PORT, host: config.HOST });
    log.info({ roles }, 'Herald worker started');
  }
}
