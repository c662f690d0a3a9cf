import { DEFAULT_OUTBOUND, type OutboundPolicy } from '../channels/outbound.js';
import type { ProviderRegistry } from '../channels/registry.js';
import type { Db } from '../db/database.js';
import type { Sealer } from '../domain/vendor-secrets.js';
import {
  DELIVERY_FETCH,
  DELIVERY_JOB_MESSAGES,
  deliverySlots,
  deliverAlone,
  deliverBatch,
  type DeliveryDeps,
  type DeliveryJobData,
  type Renderer,
} from './deliver.js';
import { withPreferenceLinks, type PreferenceLinkOptions } from '../channels/preference-links.js';
import { jobHandler, type After, type JobWork } from './job-handler.js';
import { deliveryQueue, PROVIDER_CHANNELS, QUEUES, type Queue, type QueueName, type QueuedJob } from './queue.js';
import { fanOutPage, listFanOutPage, type FanoutJob, type ListFanoutJob } from './recipients.js';
import { startTriggerBatch, startTriggerJobAlone, type QueuedTriggerData } from './trigger-jobs.js';
import { prepareWebhookAttempts, startWebhookRelay, WEBHOOK_FETCH, type WebhookJob } from './status-webhooks.js';
import { workRetention } from './retention.js';
import {
  RUN_BATCH_SIZE,
  stepNewRuns,
  stepRunBatch,
  stepRuns,
  type RunBatchJob,
  type RunJob,
  type RunnerDeps,
} from './runner.js';

/**
 * The worker: five queues, each job idempotent (processing is at-least-once). A failing job is
 * retried by the queue with backoff; a slow provider holds one delivery slot until its timeout, never
 * the others.
 */

export interface EngineOptions {
  db: Db;
  queue: Queue;
  secretBox: Sealer;
  render: Renderer;
  providers: ProviderRegistry;
  /**
   * Where recipient-chosen destinations and the workflow HTTP nodes' URLs may be (channels/outbound.ts); the
   * default policy when absent.
   */
  outbound?: OutboundPolicy;
  log: {
    error(object: object, message: string): void;
    debug?(object: object, message: string): void;
    info?(object: object, message: string): void;
  };
  now?: () => number;
  /** RETENTION_DAYS: the hourly purge of what is older (engine/retention.ts); 0 or absent, none. */
  retentionDays?: number;
  fanoutPageSize?: number;
  /** Caps every provider call below its vendor's `timeout_ms` (tests shorten it); absent, `timeout_ms` alone decides. */
  deliveryTimeoutMs?: number;
  httpTimeoutMs?: number;
  retryDelayScale?: number;
  /** Jobs of a queue in progress at once in this process. */
  concurrency?: number;
  /** Signs each recipient's preference and unsubscribe links for templates (channels/preference-links.ts). */
  preferenceLinks?: PreferenceLinkOptions;
  /** PUBLIC_URL: where vendors' status callbacks reach Herald (docs/channels.md, "Twilio status callbacks"). */
  publicUrl?: string;
}

const BATCH_SIZE = 10;
/**
 * Trigger batches one at a time per worker: triggers arriving while a batch runs make the next batch
 * larger instead of starting small ones beside it (each woken by its own NOTIFY), which would share
 * the cores and queue on the workflow rows they mark (BENCHMARKS.md, "Engine").
 */
const TRIGGER_CONCURRENCY = 1;
const BATCH = (concurrency: number, batchSize = BATCH_SIZE) =>
  ({ localConcurrency: concurrency, batchSize, burstWhenBatchFull: true, perJobResults: true }) as const;

export class Engine {
  private readonly now: () => number;

  private readonly render: Renderer;

  constructor(private readonly options: EngineOptions) {
    this.now = options.now ?? Date.now;
    this.render = options.preferenceLinks
      ? withPreferenceLinks(options.render, { now: this.now, ...options.preferenceLinks }, options.db)
      : options.render;
  }

  /**
   * Every queue's worker: jobs come in batches (one fetch for up to BATCH_SIZE, and the next fetch at once while
   * batches come back full), each handled by its queue's one handler (src/engine/job-handler.ts): the batch
   * together, else each job alone; each job settled on its own, so one failing job is retried alone.
   */
  async start() {
    const { db, queue, log } = this.options;
    const concurrency = this.options.concurrency ?? 4;
    const pageSize = this.options.fanoutPageSize ?? 500;
    const render = this.render;
    const outbound = this.options.outbound ?? DEFAULT_OUTBOUND;
    const runner: RunnerDeps = {
      db,
      queue,
      now: this.now,
      httpTimeoutMs: this.options.httpTimeoutMs ?? 10_000,
      outbound,
      log,
      render: (request, handle, memo) => render(request, handle, memo),
    };
    // Loaded in the background: a send that comes first waits for the same load, before its deadline starts.
    for (const provider of this.options.providers.values())
      provider
        .warm?.()
        .catch((error: unknown) => log.error({ err: error, provider: provider.name }, 'provider warm-up failed'));
    await workRetention({ db, queue, now: this.now, days: this.options.retentionDays ?? 0, log: this.options.log });
    const delivery: DeliveryDeps = {
      db,
      queue,
      secretBox: this.options.secretBox,
      render,
      providers: this.options.providers,
      outbound,
      now: this.now,
      deliveryTimeoutMs: this.options.deliveryTimeoutMs,
      retryDelayScale: this.options.retryDelayScale ?? 1,
      publicUrl: this.options.publicUrl,
      // Each delivery queue's slots times the messages a slot holds, whose calls go out side by side; a channel's
      // jobs may sit on its own queue and on the older shared one.
      parallelSends: 2 * deliverySlots(concurrency) * DELIVERY_FETCH * DELIVERY_JOB_MESSAGES,
      templatesMarked: new Map(),
    };
    const handler = <T>(name: QueueName, work: JobWork<T>) => jobHandler({ db, queue, log }, name, work);

    // Triggers: a job starts a group of executions (engine/trigger-jobs.ts); the batch's new runs take their first
    // step in the transaction that made them (no run job, no second fetch). Alone, a job's executions are started
    // without stepping: their runs go to run jobs, so a bad first step is its run's.
    const triggers = { db, queue, log };
    await queue.work<QueuedTriggerData>(
      QUEUES.trigger,
      BATCH(TRIGGER_CONCURRENCY, RUN_BATCH_SIZE),
      handler(QUEUES.trigger, {
        batch: (jobs) => startTriggerBatch(triggers, jobs, (trx, runs) => stepNewRuns(runner, trx, runs)),
        alone: (job) => startTriggerJobAlone(triggers, job),
      }),
    );
    await queue.work<FanoutJob>(
      QUEUES.fanout,
      BATCH(concurrency),
      handler(QUEUES.fanout, {
        batch: each((job) => db.transaction().execute((trx) => fanOutPage(trx, queue, job.data, pageSize))),
      }),
    );
    await queue.work<ListFanoutJob>(
      QUEUES.listFanout,
      BATCH(concurrency),
      handler(QUEUES.listFanout, {
        batch: each((job) => db.transaction().execute((trx) => listFanOutPage(trx, queue, job.data, pageSize))),
      }),
    );
    // Run jobs: the batch's steps in one transaction; then each run's outside call, if its step stopped at one.
    await queue.work<RunJob>(
      QUEUES.run,
      BATCH(concurrency, RUN_BATCH_SIZE),
      handler(QUEUES.run, {
        batch: async (jobs) => {
          const rest = await stepRuns(
            runner,
            jobs.map((job) => ({ runId: job.data.runId, job: { id: job.id, due: job.data.due } })),
          );
          return (job) => rest(job.data.runId);
        },
      }),
    );
    // A fan-out page's runs, stepped together (src/engine/runner.ts `stepRunBatch`). Two jobs per fetch, one after
    // the other: pg-boss fetches again at once only after a full batch of more than one job.
    await queue.work<RunBatchJob>(
      QUEUES.runBatch,
      BATCH(concurrency, 2),
      handler(QUEUES.runBatch, { batch: each((job) => stepRunBatch(runner, job.id, job.data.runIds)) }),
    );
    // A delivery queue per channel: a slow provider holds only its own channel's slots. A job carries up to
    // DELIVERY_JOB_MESSAGES messages (a retry, one), a slot fetches DELIVERY_FETCH jobs: at most 20 messages per slot,
    // half as many slots as `concurrency` (deliverySlots). A batch's provider calls go out side by side: a slow provider
    // holds its own message, not the batch.
    for (const name of [QUEUES.deliver, ...PROVIDER_CHANNELS.map(deliveryQueue)])
      await queue.work<DeliveryJobData>(
        name,
        BATCH(deliverySlots(concurrency), DELIVERY_FETCH),
        handler(name, {
          batch: (jobs) => deliverBatch(delivery, jobs),
          alone: (job) => deliverAlone(delivery, job),
          parallel: true,
        }),
      );
    // Delivery-status webhooks (engine/status-webhooks.ts): the outbox relay, and up to WEBHOOK_JOB_EVENTS first
    // attempts per job (a retry, one), a fetched batch's reads and delivered records together. `parallel` is required:
    // each attempt's record waits for the others.
    const webhooks = { db, queue, secretBox: this.options.secretBox, outbound, now: this.now };
    await queue.work<WebhookJob>(
      QUEUES.webhook,
      BATCH(concurrency, WEBHOOK_FETCH),
      handler(QUEUES.webhook, {
        batch: async (jobs) => {
          const attempt = await prepareWebhookAttempts(
            webhooks,
            jobs.map((job) => job.data),
          );
          return (job) => attempt(job.data, job.signal);
        },
        parallel: true,
      }),
    );
    await startWebhookRelay({ db, queue, log, listen: queue.database });
  }
}

/** Work done job by job after the (empty) batch step: queues whose jobs share nothing to read or write together. */
const each =
  <T>(run: (job: QueuedJob<T>) => Promise<void>) =>
  async (): Promise<After<T>> =>
    run;
