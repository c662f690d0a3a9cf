import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { DestinationStream } from 'pino';
import { trustProxyOf, type Config } from './config.js';
import type { Db, DatabaseKind } from './db/database.js';
import type { SecretBox } from './crypto/secret-box.js';
import { CredentialCache } from './auth/credential-cache.js';
import { CredentialListener, type CredentialListenerOptions } from './auth/credential-listener.js';
import { newUlid } from './ids.js';
import { errorHandler, HttpError, sendError, type ErrorShape } from './errors.js';
import { loggerOptions, RequestLogController } from './logger.js';
import { sharedSchemas } from './schemas/index.js';
import { healthRoutes } from './http/health.js';
import { metricsRoutes } from './http/metrics.js';
import { trackAllowedMethods } from './http/method-not-allowed.js';
import { registerApiReference, registerOpenApi } from './http/openapi.js';
import { registerConsole } from './http/console.js';
import { documentFrameworkErrors } from './http/documented-errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './http/json-depth.js';
import { registerRateLimit } from './http/rate-limit.js';
import { AJV_OPTIONS, refuseNonFiniteNumbers, strictBodyValidators } from './http/strict-bodies.js';
import { sharedSerializers } from './http/schema-compilers.js';
import { clientErrorHandler } from './http/client-errors.js';
import { badRequest, toHttpError, unavailable } from './errors.js';
import { baseTree } from './base/index.js';
import { createSegmentRunner } from './segments/connection.js';
import type { SegmentRunner } from './segments/runner.js';
import { managementTree } from './management/index.js';
import { jsonSchemaRoutes } from './management/json-schemas.js';
import type { Queue } from './engine/queue.js';
import { outboundPolicyOf, type OutboundPolicy } from './channels/outbound.js';
import type { PGlite } from '@electric-sql/pglite';
import { feedTree } from './base/feed.js';
import { legacyInboxRoutes } from './base/legacy-inbox.js';
import { preferencePageRoutes } from './base/preference-page.js';
import { providerCallbackRoutes } from './base/provider-callbacks.js';
import { workspaceKeyBridgeRoutes } from './base/workspace-key-bridge.js';
import { attachFeedSockets } from './base/feed-socket.js';
import { NotifyListener } from './db/notify-listener.js';
import { INBOX_CHANNEL } from './domain/inbox-events.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    databaseKind: DatabaseKind;
    secretBox: SecretBox;
    /** Where recipient-chosen destinations may be (src/channels/outbound.ts), from OUTBOUND_* config. */
    outbound: OutboundPolicy;
    /** Found credentials, kept in process; see src/auth/credential-cache.ts. */
    credentials: CredentialCache;
    /** Runs checked segment queries behind the database's own barrier (src/segments/connection.ts). */
    segmentRunner: SegmentRunner;
    /** PostgreSQL: hears other instances' credential changes; undefined on the embedded engine. */
    credentialListener: CredentialListener | undefined;
    /** The durable queue triggers are written to; undefined when the engine is not wired (503 on triggers). */
    queue: Queue | undefined;
  }
  interface FastifyRequest {
    /** The exact body bytes, for signature checks. */
    rawBody?: Buffer;
  }
  interface FastifyContextConfig {
    /** Which documented error body the route answers with (docs/spec/interface.md: full or short). */
    errorShape?: ErrorShape;
  }
}

export interface AppDependencies {
  config: Config;
  db: Db;
  databaseKind: DatabaseKind;
  secretBox: SecretBox;
  /** The durable queue (src/engine/queue.ts), started by the caller. */
  queue?: Queue;
  /** Where log lines go (tests capture them); stdout otherwise. */
  logStream?: DestinationStream;
  /** The embedded database itself: the inbox's real time hears its NOTIFYs (src/db/notify-listener.ts). */
  pglite?: PGlite;
  /** Reconnection delays of the credential change listener (tests slow it down). */
  credentialListener?: Pick<CredentialListenerOptions, 'retryDelayMs' | 'maxRetryDelayMs'>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: loggerOptions(config.LOG_LEVEL, deps.logStream),
    bodyLimit: config.BODY_LIMIT,
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    connectionTimeout: config.REQUEST_TIMEOUT_MS,
    // A request still arriving after REQUEST_TIMEOUT_MS gets 408 and its connection closed: Node checks
    // twice a second (not every 30 s), and only when headersTimeout is no longer than requestTimeout.
    // A handler still running after twice that answers 503.
    handlerTimeout: 2 * config.REQUEST_TIMEOUT_MS,
    http: { connectionsCheckingInterval: 500, headersTimeout: config.REQUEST_TIMEOUT_MS },
    // Requests that fail before routing (malformed percent-encoding, a path parameter over 1024 bytes).
    frameworkErrors: (error, request, reply) => sendError(request, reply, toHttpError(error)),
    // Requests Node's parser refuses (431, conflicting length headers …), in Herald's error shape.
    clientErrorHandler,
    // Refused by the hook below instead, so the 503 has the route's error body.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 1024 },
    requestIdHeader: 'x-request-id',
    trustProxy: trustProxyOf(config.TRUST_PROXY),
    logController: new RequestLogController(),
    genReqId: () => newUlid(),
    ajv: { customOptions: { ...AJV_OPTIONS } },
    schemaController: {
      compilersFactory: { buildValidator: strictBodyValidators, buildSerializer: sharedSerializers },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('config', config);
  app.decorate('db', deps.db);
  app.decorate('databaseKind', deps.databaseKind);
  app.decorate('secretBox', deps.secretBox);
  app.decorate('outbound', outboundPolicyOf(config));
  app.decorate('queue', deps.queue);
  const credentials = new CredentialCache({
    maxEntries: config.CREDENTIAL_CACHE_SIZE,
    ttlMs: config.CREDENTIAL_CACHE_TTL_SECONDS * 1000,
  });
  // Several instances may share PostgreSQL: they hear each other's changes, or do not cache at all.
  const listener =
    deps.databaseKind === 'postgres' && config.DATABASE_URL && config.CREDENTIAL_CACHE_SIZE > 0
      ? new CredentialListener({
          url: config.DATABASE_URL,
          cache: credentials,
          log: app.log,
          ...deps.credentialListener,
        })
      : undefined;
  app.decorate('credentials', credentials);
  app.decorate('credentialListener', listener);
  if (listener) {
    app.addHook('onClose', () => listener.stop());
    await listener.start();
  }
  const segmentRunner = createSegmentRunner({ config, databaseKind: deps.databaseKind, db: deps.db, log: app.log });
  app.decorate('segmentRunner', segmentRunner);
  app.addHook('onClose', () => segmentRunner.close());
  app.decorateRequest('auth', null as never);
  app.decorateRequest('workspace', null as never);

  for (const schema of sharedSchemas) app.addSchema(schema);
  const allowedMethods = trackAllowedMethods(app);

  // Keep the raw bytes: signed requests are verified against exactly what was sent.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    request.rawBody = bytes;
    if (bytes.length === 0) return done(null, undefined);
    parseJson(request, bytes.toString('utf8'), (error, value) => {
      if (error) return done(error, undefined);
      if (nestsDeeperThan(value, MAX_JSON_DEPTH))
        return done(
          badRequest(`the body nests deeper than ${MAX_JSON_DEPTH} levels`, { body: 'is nested too deeply' }),
          undefined,
        );
      done(null, value);
    });
  });

  // On shutdown, responses still in flight tell keep-alive clients to hang up, so close() can finish;
  // requests still arriving on open connections are refused with 503.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Callback hooks, not async ones: these run on every request, and a promise each is measurable.
  app.addHook('preHandler', refuseNonFiniteNumbers);
  app.addHook('onRequest', (request, reply, done) => {
    if (!REQUEST_ID.test(String(request.id))) request.id = newUlid();
    reply.header('x-request-id', request.id);
    done(closing ? unavailable('the server is shutting down; retry shortly') : undefined);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler((request, reply) => {
    const methods = allowedMethods(request.url);
    if (methods.length > 0) {
      reply.header('allow', methods.join(', '));
      return sendError(
        request,
        reply,
        new HttpError(
          405,
          `method ${request.method} is not allowed on ${request.url.split('?')[0]}; allowed: ${methods.join(', ')}`,
        ),
      );
    }
    return sendError(request, reply, new HttpError(404, `no route for ${request.method} ${request.url.split('?')[0]}`));
  });

  await registerOpenApi(app);
  await registerRateLimit(app, { max: config.RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS });
  documentFrameworkErrors(app, { rateLimited: config.RATE_LIMIT_MAX > 0 });
  await app.register(healthRoutes);
  const { queue } = deps;
  await app.register(metricsRoutes, {
    token: config.METRICS_TOKEN,
    readQueues: queue ? () => queue.readings(deps.db) : undefined,
  });
  await app.register(baseTree);
  await app.register(feedTree);
  await app.register(legacyInboxRoutes);
  await app.register(preferencePageRoutes);
  await app.register(workspaceKeyBridgeRoutes);
  await app.register(providerCallbackRoutes(config.PUBLIC_URL));
  // Feed events from every process (PostgreSQL) or this one (embedded) reach the browsers' sockets.
  const feedEvents = new NotifyListener({
    channel: INBOX_CHANNEL,
    url: config.DATABASE_URL,
    pglite: deps.pglite,
    onDisconnect: (error) => app.log.warn({ err: error }, 'feed event listener disconnected: reconnecting'),
  });
  app.decorate('inboxSockets', attachFeedSockets(app, feedEvents, credentials));
  app.addHook('onClose', () => feedEvents.stop());
  await feedEvents.start();
  await app.register(managementTree, { prefix: config.MANAGEMENT_PREFIX });
  await app.register(jsonSchemaRoutes, { prefix: config.MANAGEMENT_PREFIX });
  await registerApiReference(app, config.MANAGEMENT_PREFIX);
  await registerConsole(app, config.MANAGEMENT_PREFIX);
  return app;
}

/**
 * What a worker process serves (HERALD_ROLE=worker, `herald worker`): `/healthz`, `/readyz` and `/metrics` on PORT,
 * so the image's health check and the scraper reach it as they reach an API process.
 */
export async function buildStatusApp(
  deps: Pick<AppDependencies, 'config' | 'db' | 'databaseKind' | 'queue' | 'logStream'>,
): Promise<FastifyInstance> {
  const { config, queue } = deps;
  const app = Fastify({ logger: loggerOptions(config.LOG_LEVEL, deps.logStream), genReqId: () => newUlid() });
  app.decorate('config', config);
  app.decorate('db', deps.db);
  app.decorate('databaseKind', deps.databaseKind);
  for (const schema of sharedSchemas) app.addSchema(schema);
  app.setErrorHandler(errorHandler);
  await app.register(healthRoutes);
  await app.register(metricsRoutes, {
    token: config.METRICS_TOKEN,
    readQueues: queue ? () => queue.readings(deps.db) : undefined,
  });
  return app;
}
