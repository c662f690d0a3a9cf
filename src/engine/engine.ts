import { DEFAULT_OUTBOUND, type OutboundPolicy } from '../channels/outbound.js';
import type { ProviderRegistry } from '../channels/registry.js';
import type { Db } from '../db/database.js';
import type { Sealer } from '../domain/vendor-secrets.js';
import { deliverMessage, prepareDeliveries, sendDeliveries, type DeliveryJob, type Renderer } from './deliver.js';
import { withPreferenceLinks, type PreferenceLinkOptions } from '../channels/preference-links.js';
import { jobId } from './job-ids.js';
import { databaseBack } from './outage.js';
import { deliveryQueue, PROVIDER_CHANNELS, QUEUES, type Queue, type QueuedJob } from './queue.js';
import {
  fanOutPage,
  listFanOutPage,
  startExecution,
  startExecutions,
  type FanoutJob,
  type ListFanoutJob,
} from './recipients.js';
import { deliverWebhook, startWebhookRelay, type WebhookJob } from './status-webhooks.js';
import { advanceRun, RUN_BATCH_SIZE, stepNewRuns, stepRuns, type RunBatchJob, type RunJob } from './runner.js';

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
  log: { error(object: object, message: string): void; debug?(object: object, message: string): void };
  now?: () => number;
  fanoutPageSize?: number;
  /** Caps every provider call below its vendor's `timeout_ms` (tests shorten it); absent, `timeout_ms` alone decides. */
  deliveryTimeoutMs?: number;
  httpTimeoutMs?: number;
  retryDelayScale?: number;
  /** Jobs of a queue in progress at once in this process. */
  concurrency?: number;
  /** Signs each recipient's preference and unsubscribe links for templates (channels/preference-links.ts). */
  preferenceLinks?: PreferenceLinkOptions;
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
   * Jobs come in batches (one fetch for up to BATCH_SIZE, and the next fetch at once while batches come
   * back full); each job is settled on its own, so one failing job is retried alone.
   */
  private handle<T>(
    queue: string,
    run: (data: T, jobId: string, signal: AbortSignal) => Promise<void>,
    options: { parallel?: boolean } = {},
  ) {
    const settle = async (job: QueuedJob<T>) => {
      try {
        await run(job.data, job.id, job.signal);
        return { id: job.id, status: 'completed' as const };
      } catch (error) {
        this.options.log.error({ err: error, queue, job_id: job.id }, 'job failed; the queue retries it');
        // Failed on an unreachable database: the failure is recorded (and the job retried) once it is back,
        // unless the worker is stopping.
        await databaseBack(this.options.db, error, AbortSignal.any([job.signal, this.options.queue.stopSignal]));
        const message = error instanceof Error ? error.message : String(error);
        return { id: job.id, status: 'failed' as const, output: { message } };
      }
    };
    return async (jobs: QueuedJob<T>[]) => {
      // Deliveries of a batch go out side by side: a slow provider holds its own message, not the batch.
      if (options.parallel) return Promise.all(jobs.map(settle));
      const results = [];
      for (const job of jobs) results.push(await settle(job));
      return results;
    };
  }

  async start() {
    const { db, queue } = this.options;
    const concurrency = this.options.concurrency ?? 4;
    const pageSize = this.options.fanoutPageSize ?? 500;
    const render = this.render;
    const runner = {
      db,
      queue,
      now: this.now,
      httpTimeoutMs: this.options.httpTimeoutMs ?? 10_000,
      outbound: this.options.outbound ?? DEFAULT_OUTBOUND,
      log: this.options.log,
      render: (request: Parameters<Renderer>[0], handle: Db, memo?: Parameters<Renderer>[2]) =>
        render(request, handle, memo),
    };
    const oneTrigger = this.handle(QUEUES.trigger, (data: { executionId: string }) =>
      db.transaction().execute((trx) => startExecution(trx, queue, data.executionId)),
    );
    await queue.work<{ executionId: string }>(
      QUEUES.trigger,
      BATCH(TRIGGER_CONCURRENCY, RUN_BATCH_SIZE),
      async (jobs) => {
        try {
          // The batch's new runs take their first step in the same transaction: no run job, no second fetch.
          await db.transaction().execute((trx) =>
            startExecutions(
              trx,
              queue,
              jobs.map((job) => job.data.executionId),
              (runIds) => stepNewRuns(runner, trx, runIds),
            ),
          );
        } catch (error) {
          // One bad trigger or first step must not hold back the others: each trigger is started on its
          // own, its runs handed to run jobs as before, and only a failing one is retried.
          this.options.log.debug?.({ err: error }, 'batched trigger jobs failed; starting them one by one');
          return oneTrigger(jobs);
        }
        return jobs.map((job) => ({ id: job.id, status: 'completed' as const }));
      },
    );
    await queue.work<FanoutJob>(
      QUEUES.fanout,
      BATCH(concurrency),
      this.handle(QUEUES.fanout, (data) => db.transaction().execute((trx) => fanOutPage(trx, queue, data, pageSize))),
    );
    await queue.work<ListFanoutJob>(
      QUEUES.listFanout,
      BATCH(concurrency),
      this.handle(QUEUES.listFanout, (data) =>
        db.transaction().execute((trx) => listFanOutPage(trx, queue, data, pageSize)),
      ),
    );
    const one = this.handle(QUEUES.run, (data: RunJob, jobId) =>
      advanceRun(runner, data.runId, { id: jobId, due: data.due }),
    );
    await queue.work<RunJob>(QUEUES.run, BATCH(concurrency, RUN_BATCH_SIZE), async (jobs) => {
      if (jobs.length < 2) return one(jobs);
      let rest: Awaited<ReturnType<typeof stepRuns>>;
      try {
        rest = await stepRuns(
          runner,
          jobs.map((job) => ({ runId: job.data.runId, job: { id: job.id, due: job.data.due } })),
        );
      } catch (error) {
        // One run's failure must not hold back the others: each goes on its own, and only the failing one is retried.
        this.options.log.debug?.({ err: error }, 'batched run step failed; stepping the runs one by one');
        return one(jobs);
      }
      return this.handle(QUEUES.run, (data: RunJob) => rest(data.runId))(jobs);
    });
    // A fan-out page's runs: stepped together, else one by one. A run that fails on its own does not fail
    // its batch-mates' job: it goes on as a run job of its own (retried, and finally failed, as any run),
    // and the batch job completes. Two jobs per fetch, one after the other: pg-boss fetches again at
    // once only after a full batch of more than one job.
    await queue.work<RunBatchJob>(
      QUEUES.runBatch,
      BATCH(concurrency, 2),
      this.handle(QUEUES.runBatch, async (data, batchJobId) => {
        const handled = { id: batchJobId };
        let rest: (runId: string) => Promise<void>;
        try {
          rest = await stepRuns(
            runner,
            data.runIds.map((runId) => ({ runId, job: handled })),
          );
        } catch (error) {
          this.options.log.debug?.({ err: error }, 'batched run step failed; stepping the runs one by one');
          rest = (runId) => advanceRun(runner, runId, handled);
        }
        const failed: string[] = [];
        for (const runId of data.runIds)
          await rest(runId).catch((error: unknown) => {
            this.options.log.error(
              { err: error, queue: QUEUES.runBatch, job_id: batchJobId, run_id: runId },
              'run of a batch failed; it goes on as a run job of its own',
            );
            failed.push(runId);
          });
        if (failed.length === 0) return;
        // After the queue's first retry delay, as the run's own job would be retried; if this send fails,
        // the batch job fails and is retried whole (a run already moved on is not stepped again).
        await db.transaction().execute((trx) =>
          queue.sendMany(
            trx,
            QUEUES.run,
            failed.map((runId) => ({
              data: { runId } satisfies RunJob,
              options: { id: jobId('run-alone', runId, batchJobId), startAfter: 1 },
            })),
          ),
        );
      }),
    );
    const delivery = {
      db,
      queue,
      secretBox: this.options.secretBox,
      render: this.render,
      providers: this.options.providers,
      outbound: this.options.outbound ?? DEFAULT_OUTBOUND,
      now: this.now,
      deliveryTimeoutMs: this.options.deliveryTimeoutMs,
      retryDelayScale: this.options.retryDelayScale ?? 1,
    };
    // A delivery queue per channel: a slow provider holds only its own channel's slots.
    for (const name of [QUEUES.deliver, ...PROVIDER_CHANNELS.map(deliveryQueue)]) {
      const oneByOne = this.handle(name, (data: DeliveryJob, _id, signal) => deliverMessage(delivery, data, signal), {
        parallel: true,
      });
      await queue.work<DeliveryJob>(name, BATCH(concurrency), async (jobs) => {
        if (jobs.length < 2) return oneByOne(jobs);
        let prepared: Awaited<ReturnType<typeof prepareDeliveries>>;
        try {
          prepared = await prepareDeliveries(
            delivery,
            jobs.map((job) => job.data),
          );
        } catch (error) {
          // Nothing was sent: each job goes on its own, and only a failing one is retried.
          this.options.log.debug?.({ err: error }, 'batched delivery failed; delivering one by one');
          return oneByOne(jobs);
        }
        const alone = new Set(prepared.oneByOne.map((job) => job.messageId));
        const signals = new Map(jobs.map((job) => [job.data.messageId, job.signal]));
        const results = await Promise.all([
          oneByOne(jobs.filter((job) => alone.has(job.data.messageId))),
          sendDeliveries(delivery, prepared, (messageId) => signals.get(messageId)!).then(
            () => 'completed' as const,
            (error: unknown) => {
              this.options.log.error({ err: error, queue: name }, 'batched delivery failed; the queue retries it');
              return error instanceof Error ? error.message : String(error);
            },
          ),
        ]);
        const [single, batch] = results;
        return [
          ...single,
          ...jobs
            .filter((job) => !alone.has(job.data.messageId))
            .map((job) =>
              batch === 'completed'
                ? { id: job.id, status: 'completed' as const }
                : { id: job.id, status: 'failed' as const, output: { message: batch } },
            ),
        ];
      });
    }
    // Delivery-status webhooks (engine/status-webhooks.ts): the outbox relay, and one attempt per job.
    const webhooks = { db, queue, secretBox: this.options.secretBox, outbound: delivery.outbound, now: this.now };
    await queue.work<WebhookJob>(
      QUEUES.webhook,
      BATCH(concurrency),
      this.handle(QUEUES.webhook, (data: WebhookJob, _id, signal) => deliverWebhook(webhooks, data, signal), {
        parallel: true,
      }),
    );
    startWebhookRelay({ db, queue, log: this.options.log });
  }
}
