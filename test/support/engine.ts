import { renderTemplate, type RenderOutcome, type RenderRequest } from '../../src/channels/rendering.js';
import type { Provider } from '../../src/channels/provider.js';
import { providers as registeredProviders } from '../../src/channels/registry.js';
import type { DatabaseHandle } from '../../src/db/database.js';
import type { SecretBox } from '../../src/crypto/secret-box.js';
import { Engine, type EngineOptions } from '../../src/engine/engine.js';
import { Queue, type QueueOptions } from '../../src/engine/queue.js';
import { sql } from 'kysely';
import { ulid } from 'ulid';

/**
 * A small renderer for engine tests, standing in for the template store (branch `channels`) until it
 * lands on main: it renders a fixed content from the context, so tests can check what reached the
 * recipient. The slug `broken` fails, as a template that cannot render does.
 */
export async function testRenderer(request: RenderRequest): Promise<RenderOutcome> {
  if (request.templateSlug === 'broken')
    return { ok: false, reason: "template 'broken' has no variant for the channel" };
  const { data, $recipient, recipient } = request.context;
  const name = ($recipient.name as string | undefined) ?? ($recipient.distinct_id as string | undefined) ?? 'there';
  return {
    ok: true,
    content: {
      header: `Hello ${name}`,
      text: typeof data.text === 'string' ? data.text : `${request.templateSlug} on ${request.channel}`,
      ...(recipient?.subscription ? { subscription: recipient.subscription } : {}),
    },
    template: { slug: request.templateSlug, version_no: 1, variant_id: 'default' },
  };
}

export interface TestEngineOptions {
  /** Extra providers beside the registered ones (a slow or failing one). */
  providers?: Provider[];
  worker?: boolean;
  /** `templates`: the template store's renderer (src/channels/rendering.ts) instead of testRenderer. */
  renderer?: 'test' | 'templates';
  /** pg-boss's schema, shared with worker processes a test starts (PostgreSQL). */
  schema?: string;
  engine?: Partial<EngineOptions>;
  /** Preference links in rendered messages, as the server's worker adds them (signed with the app's secret box). */
  preferenceLinks?: { publicUrl: string };
  /** Queue settings (a short job expiry, for tests where a worker or the database goes away; a long poll). */
  queue?: Partial<
    Pick<QueueOptions, 'jobExpireSeconds' | 'heartbeatSeconds' | 'superviseSeconds' | 'pollingIntervalSeconds'>
  >;
}

export interface TestEngine {
  queue: Queue;
  /** pg-boss's schema: tests that play the clock forward move a scheduled job's start_after there. */
  schema: string;
  engine: Engine | undefined;
  /** Stops the worker (graceful) and forgets the queue's schema (PostgreSQL). */
  stop(): Promise<void>;
  /** Another worker process on the same queue: its own pg-boss instance and engine. */
  addWorker(): Promise<void>;
  /**
   * Every worker stops (graceful), nothing runs for `pauseMs`, then one new worker starts on the same
   * queue: an outage. The app's own queue handle is stopped with them, so trigger before restarting.
   */
  restart(pauseMs: number): Promise<void>;
}

/** The durable queue over the test's database (its own pg-boss schema on PostgreSQL) and, unless told not to, a worker. */
export async function startTestEngine(
  handle: DatabaseHandle,
  url: string | undefined,
  secretBox: SecretBox,
  log: EngineOptions['log'],
  options: TestEngineOptions = {},
): Promise<TestEngine> {
  const schema = options.schema ?? (url ? `pgboss_t_${ulid().toLowerCase()}` : 'pgboss');
  const providers = new Map(registeredProviders);
  for (const provider of options.providers ?? []) providers.set(provider.name, provider);
  const newQueue = async () => {
    const queue = new Queue({
      url,
      pglite: handle.pglite,
      schema,
      pollingIntervalSeconds: 0.5,
      poolSize: 4,
      ...options.queue,
    });
    await queue.start();
    return queue;
  };
  const newEngine = async (queue: Queue) => {
    const engine = new Engine({
      db: handle.db,
      queue,
      secretBox,
      render:
        options.renderer === 'templates' ? (request, db) => renderTemplate(db ?? handle.db, request) : testRenderer,
      providers,
      log,
      retryDelayScale: 0.02,
      deliveryTimeoutMs: 1000,
      fanoutPageSize: 50,
      ...(options.preferenceLinks ? { preferenceLinks: { signer: secretBox, ...options.preferenceLinks } } : {}),
      ...options.engine,
    });
    await engine.start();
    return engine;
  };
  const queue = await newQueue();
  const engine = options.worker === false ? undefined : await newEngine(queue);
  let queues = [queue];
  return {
    queue,
    schema,
    engine,
    async stop() {
      for (const q of queues) await q.stop(5000);
      if (url) await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(handle.db);
    },
    async addWorker() {
      const extra = await newQueue();
      queues.push(extra);
      await newEngine(extra);
    },
    async restart(pauseMs: number) {
      for (const q of queues) await q.stop(5000);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const fresh = await newQueue();
      queues = [fresh];
      await newEngine(fresh);
    },
  };
}
