import type { PGlite } from '@electric-sql/pglite';
import { CompiledQuery } from 'kysely';
import { PgBoss, fromKysely, fromPglite, type Db as IDatabase, type JobInsert, type WorkOptions } from 'pg-boss';
import type { Db, Trx } from '../db/database.js';
import { notifyQuery, withFirstStatement } from './pg-boss-internals.js';
import { PROVIDER_CHANNELS, type ProviderChannel } from '../schemas/delivery-channels.js';
import type { QueueReading } from '../telemetry/metrics.js';

/**
 * The durable queue: pg-boss, in the same database as everything else (docs/engine.md, "The queue").
 *
 * Every job is enqueued inside the caller's transaction, through that transaction's handle: the job
 * exists exactly when the caller's rows do. On PostgreSQL pg-boss has a pool of its own; on the
 * embedded engine it talks to the PGlite directly, and waits while a Kysely transaction holds it
 * (src/db/pglite-dialect.ts).
 */

export const QUEUES = {
  /** A trigger accepted: resolve its recipients into runs. */
  trigger: 'herald-trigger',
  /** One page of an object's subscribers. */
  fanout: 'herald-fanout',
  /** One page of a broadcast's list members. */
  listFanout: 'herald-list-fanout',
  /** One recipient's run, from its position in the tree. */
  run: 'herald-run',
  /** A fan-out page's new runs (up to RUN_BATCH_SIZE), stepped together: one job per batch, not per run. */
  runBatch: 'herald-run-batch',
  /** Messages to their provider (jobs queued before deliveries had a queue per channel). */
  deliver: 'herald-deliver',
  /** One attempt of one delivery-status webhook event (engine/status-webhooks.ts). */
  webhook: 'herald-webhook',
  /** The retention purge, sent by a pg-boss schedule (engine/retention.ts). */
  retention: 'herald-retention',
} as const;

/**
 * A delivery queue per provider channel, so a slow or failing provider holds only its own channel's
 * slots and backlog: the other channels' deliveries neither wait behind its jobs nor for its timeouts.
 */
export { PROVIDER_CHANNELS };
type DeliveryQueueName = `herald-deliver-${ProviderChannel}`;
export const deliveryQueue = (channel: string): QueueName =>
  (PROVIDER_CHANNELS as readonly string[]).includes(channel)
    ? (`herald-deliver-${channel}` as DeliveryQueueName)
    : QUEUES.deliver;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES] | DeliveryQueueName;
export const ALL_QUEUES: QueueName[] = [...Object.values(QUEUES), ...PROVIDER_CHANNELS.map(deliveryQueue)];

export interface QueueOptions {
  /** PostgreSQL: the connection string pg-boss opens its own pool on. */
  url?: string;
  pglite?: PGlite;
  /** pg-boss's own pool size on PostgreSQL. */
  poolSize?: number;
  /** How often an idle worker looks for jobs, in seconds (≥ 0.5); NOTIFY wakes it sooner. */
  pollingIntervalSeconds?: number;
  /** pg-boss's schema (default `pgboss`); tests give each app its own. */
  schema?: string;
  /** The longest a job may run, heartbeat or not: one running longer is failed, and retried (default 300). */
  jobExpireSeconds?: number;
  /**
   * A job whose worker has not refreshed it for this long (≥ 10) is taken to be lost with its worker, and retried
   * (default 10): the worker refreshes its jobs' heartbeat every half of it while their handler runs.
   */
  heartbeatSeconds?: number;
  /** How often lost jobs are looked for (default 10). */
  superviseSeconds?: number;
  /**
   * The emulator's clock (src/testing.ts): how far the engine's time runs ahead of the database's. A job
   * scheduled for an instant of the engine's time is due that much earlier by the database's `now()`, which
   * pg-boss reads. Absent in a running Herald, where both read the same time.
   */
  aheadMs?: () => number;
  /** Tracing on: pg-boss's spans, and each job carries its sender's trace context (docs/operations.md, "Traces"). */
  tracing?: boolean;
}

/**
 * Queues whose sends do not NOTIFY in the inserting statement: a NOTIFY takes a database-wide lock
 * from its commit to the end of the WAL flush, so concurrent committing triggers queued behind it (452
 * against 237 µs of PostgreSQL CPU per accepted trigger, and a 3,100 against 7,900 per second ceiling;
 * BENCHMARKS.md, "Trigger accept"). Their senders wake the workers instead: `notifyIn` inside a
 * transaction, or `wake` after a commit, at most one NOTIFY per WAKE_INTERVAL_MS whatever the rate.
 */
const WOKEN_BY_SENDER: readonly QueueName[] = [QUEUES.trigger];
const WAKE_INTERVAL_MS = 5;
/**
 * On the embedded engine the API and the worker share one thread and PGlite runs one statement at a
 * time: a worker's round (its fetch, its transaction, a run's statements) costs the same whether it
 * starts 5 triggers or 50, and the API waits while it runs. Woken on timing alone (20 ms, as until
 * 2026-11-27), the round's size followed the rate: at c=10 it settled at the ten triggers of one
 * trigger write, and the rounds' fixed cost halved the rate (637–832/s, 1.3–1.6 statements per
 * trigger, on a build that had also given 1,514/s). So on PGlite a wake waits until
 * EMBEDDED_WAKE_JOBS jobs were sent since the last one, or at most EMBEDDED_WAKE_INTERVAL_MS: under
 * load every round starts about fifty triggers in one transaction whatever the rate, and its length
 * (what a request waits behind) stays bounded; an idle server still wakes the worker at once
 * (BENCHMARKS.md, "Embedded engine").
 */
const EMBEDDED_WAKE_INTERVAL_MS = 100;
const EMBEDDED_WAKE_JOBS = 50;

/** pg-boss statements, run on the caller's Kysely handle, its transaction or the pool (pg-boss's own public adapter). */
const onTransaction = (db: Db): IDatabase => fromKysely(db);

export type JobOptions = Omit<JobInsert, 'data'>;

/** A fetched job, as a handler sees it. */
export interface QueuedJob<T> {
  id: string;
  data: T;
  signal: AbortSignal;
}

export class Queue {
  readonly boss: PgBoss;
  readonly pollingIntervalSeconds: number;
  private started = false;
  private readonly stopping = new AbortController();
  private readonly jobExpireSeconds: number;
  private readonly heartbeatSeconds: number;
  readonly schema: string;
  /** The database the queue is on: other listeners of this process's NOTIFYs connect to it (engine/status-webhooks.ts). */
  readonly database: { url?: string; pglite?: PGlite };
  private readonly aheadMs: (() => number) | undefined;
  private readonly wakeIntervalMs: number;
  /** Jobs sent since the last wake that send it at once, before its interval ends (PGlite only). */
  private readonly wakeJobs: number;
  private readonly wakes = new Map<
    QueueName,
    { timer?: NodeJS.Timeout; inFlight: boolean; again: boolean; last: number; pending: number }
  >();

  constructor(options: QueueOptions) {
    this.jobExpireSeconds = options.jobExpireSeconds ?? 300;
    this.heartbeatSeconds = options.heartbeatSeconds ?? 10;
    this.pollingIntervalSeconds = options.pollingIntervalSeconds ?? 1;
    this.schema = options.schema ?? 'pgboss';
    this.database = { url: options.url, pglite: options.pglite };
    this.aheadMs = options.aheadMs;
    this.wakeIntervalMs = options.pglite ? EMBEDDED_WAKE_INTERVAL_MS : WAKE_INTERVAL_MS;
    this.wakeJobs = options.pglite ? EMBEDDED_WAKE_JOBS : Number.POSITIVE_INFINITY;
    const common = {
      schema: this.schema,
      useListenNotify: true,
      // Upkeep stays on in every instance: pg-boss lets one at a time do each pass.
      superviseIntervalSeconds: options.superviseSeconds ?? 10,
      monitorIntervalSeconds: options.superviseSeconds ?? 10,
      // Off, pg-boss neither stores nor reads a trace context on jobs.
      openTelemetry: options.tracing ? { propagateContext: true } : { enabled: false },
    };
    if (options.pglite) {
      this.boss = new PgBoss({ ...common, db: fromPglite(options.pglite), backend: 'pglite' });
    } else if (options.url) {
      this.boss = new PgBoss({
        ...common,
        connectionString: options.url,
        max: options.poolSize ?? 5,
        application_name: 'herald-queue',
      });
    } else {
      throw new Error('the queue needs DATABASE_URL or an embedded database');
    }
    // pg-boss reports trouble it recovers from (a lost connection, a failed maintenance run) as events.
    this.boss.on('error', () => {});
  }

  /** Installs or migrates pg-boss's schema and creates every queue: a send to a missing queue cannot succeed. */
  async start() {
    if (this.started) return;
    await this.boss.start();
    // Jobs carry their queue's heartbeat: a worker killed or cut off from the database stops refreshing its
    // jobs, and the supervisor hands them to another worker once they are heartbeatSeconds stale, however long
    // the expiry; a live worker's long provider call keeps its jobs fresh (docs/engine.md, "The queue").
    const heartbeatSeconds = this.heartbeatSeconds;
    // Every queue read in one statement (a start used to read each one twice).
    const existing = new Map((await this.boss.getQueues(ALL_QUEUES)).map((queue) => [queue.name, queue]));
    for (const name of ALL_QUEUES) {
      const notify = !WOKEN_BY_SENDER.includes(name);
      const queue = existing.get(name);
      // A queue made before its senders woke the workers themselves stops notifying on insert; one made
      // before heartbeats (or with another heartbeat) takes this one, for the jobs sent from now on.
      if (queue && (queue.notify !== notify || queue.heartbeatSeconds !== heartbeatSeconds))
        await this.boss.updateQueue(name, { notify, heartbeatSeconds });
      if (!queue)
        await this.boss.createQueue(name, {
          notify,
          retryLimit: 5,
          retryDelay: 1,
          retryBackoff: true,
          retryDelayMax: 60,
          expireInSeconds: this.jobExpireSeconds,
          heartbeatSeconds,
        });
    }
    // Every queue is now in pg-boss's cache (its start reads the queues there are; createQueue and updateQueue
    // reload the one they change), so a send inside a transaction never looks its queue up outside that
    // transaction (on one PGlite that lookup would wait for the transaction: a deadlock).
    this.started = true;
  }

  onError(listener: (error: Error) => void) {
    this.boss.on('error', listener);
  }

  /** A start time of the engine's clock on the database's (the emulator's clock runs ahead of it). */
  private dueOn<T extends JobOptions | undefined>(options: T): T {
    if (!this.aheadMs || !(options?.startAfter instanceof Date)) return options;
    return { ...options, startAfter: new Date(options.startAfter.getTime() - this.aheadMs()) };
  }

  /** One job, written on the caller's handle (in its transaction when it holds one). */
  async send(db: Db, name: QueueName, data: object, options: JobOptions = {}) {
    await this.boss.send(name, data, { ...this.dueOn(options), db: onTransaction(db) });
  }

  /** Many jobs in one statement, written on the caller's handle (in its transaction when it holds one). */
  async sendMany(db: Db, name: QueueName, jobs: { data: object; options?: JobOptions }[]) {
    if (jobs.length === 0) return;
    await this.boss.insert(
      name,
      jobs.map((job) => ({ ...this.dueOn(job.options), data: job.data })),
      { db: onTransaction(db) },
    );
  }

  /**
   * Many jobs and the caller's own insert (`first`, run as a CTE) in one statement: one round trip,
   * atomic without a transaction, so the jobs exist exactly when the caller's rows do. pg-boss builds
   * its insert as it does for sendMany; its parameters are renumbered after `first`'s.
   */
  async sendManyWith(db: Db, name: QueueName, jobs: { data: object; options?: JobOptions }[], first: CompiledQuery) {
    await this.boss.insert(
      name,
      jobs.map((job) => ({ ...this.dueOn(job.options), data: job.data })),
      { db: withFirstStatement(db, first) },
    );
  }

  /** The statement that wakes the workers of a queue (src/engine/pg-boss-internals.ts). */
  private notifySql(name: QueueName) {
    return notifyQuery(this.schema, name);
  }

  /** Wakes the queue's workers when the caller's transaction commits (a queue in WOKEN_BY_SENDER). */
  async notifyIn(trx: Trx, name: QueueName) {
    await trx.executeQuery(this.notifySql(name));
  }

  /**
   * Wakes the queue's workers after `jobs` jobs were committed outside a transaction: one NOTIFY now
   * when none went out in the last WAKE_INTERVAL_MS (on PGlite EMBEDDED_WAKE_INTERVAL_MS, or sooner once
   * EMBEDDED_WAKE_JOBS jobs were sent since the last), else one when that interval ends, and always one
   * sent after this call (a NOTIFY already in flight may have left before the caller's commit). A lost
   * NOTIFY only delays the jobs until the workers' next poll.
   */
  wake(db: Db, name: QueueName, jobs = 1) {
    let state = this.wakes.get(name);
    if (!state) this.wakes.set(name, (state = { inFlight: false, again: false, last: 0, pending: 0 }));
    state.pending += jobs;
    const enough = state.pending >= this.wakeJobs;
    if (state.timer) {
      if (!enough) return;
      clearTimeout(state.timer);
      state.timer = undefined;
    }
    if (state.inFlight) {
      state.again = true;
      return;
    }
    const wakeState = state;
    const send = () => {
      wakeState.timer = undefined;
      wakeState.inFlight = true;
      wakeState.last = Date.now();
      wakeState.pending = 0;
      db.executeQuery(this.notifySql(name))
        .catch(() => {})
        .finally(() => {
          wakeState.inFlight = false;
          if (!wakeState.again) return;
          wakeState.again = false;
          this.wake(db, name, 0);
        });
    };
    const delay = enough ? 0 : state.last + this.wakeIntervalMs - Date.now();
    if (delay <= 0) send();
    else state.timer = setTimeout(send, delay);
  }

  /**
   * A handler for a queue's batches. A job's `signal` aborts when its worker stops (shutdown, once the stop's grace
   * is spent) or its claim is gone (its heartbeat found it taken over): work whose result can no longer land ends.
   */
  async work<T extends object>(
    name: QueueName,
    options: WorkOptions,
    handler: (jobs: QueuedJob<T>[]) => Promise<unknown>,
  ) {
    return this.boss.work<T>(
      name,
      // NOTIFY wakes an idle worker at once; a busy one misses it, so polling stays this frequent.
      {
        pollingIntervalSeconds: this.pollingIntervalSeconds,
        notifyPollingIntervalSeconds: this.pollingIntervalSeconds,
        ...options,
      },
      handler as never,
    );
  }

  /** Aborts when this queue starts stopping: work that waits for the database gives up then. */
  get stopSignal(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * Each queue's jobs by state, as pg-boss counted them at its last monitor pass (every
   * QUEUE_SUPERVISE_SECONDS), and the wait of its oldest job ready to run, read now on `db` through
   * pg-boss's job table (pg-boss reports that wait only with its persisted statistics, which we keep off).
   */
  async readings(db: Db): Promise<QueueReading[]> {
    const queues = await this.boss.getQueues(ALL_QUEUES);
    const oldest = await db.executeQuery<{ name: string; seconds: number }>(
      CompiledQuery.raw(
        `select name, extract(epoch from now() - min(greatest(created_on, start_after)))::float8 as seconds
           from ${this.schema}.job where state < 'active' and start_after <= now() group by name`,
      ),
    );
    const waits = new Map(oldest.rows.map((row) => [row.name, Math.max(0, Number(row.seconds))]));
    return queues.map((queue) => ({
      queue: queue.name,
      states: {
        ready: queue.readyCount,
        deferred: queue.deferredCount,
        active: queue.activeCount,
        failed: queue.failedCount,
      },
      oldestReadySeconds: waits.get(queue.name) ?? 0,
    }));
  }

  /** Sends a job to `name` on `cron` (UTC), from whichever instance's clock gets there first; none when `cron` is null. */
  async schedule(name: QueueName, cron: string | null) {
    if (cron) await this.boss.schedule(name, cron, {}, { tz: 'UTC' });
    else await this.boss.unschedule(name);
  }

  /**
   * Deletes up to `limit` jobs that finished (completed, failed or cancelled) before `cutoff`, in pg-boss's job table
   * (its own upkeep also deletes them a week after they finish); answers how many went.
   */
  async purgeFinishedJobs(db: Db, cutoff: Date, limit: number): Promise<number> {
    const result = await db.executeQuery(
      CompiledQuery.raw(
        `delete from ${this.schema}.job where (name, id) in (
           select name, id from ${this.schema}.job where state > 'active' and completed_on < $1 limit $2)`,
        [cutoff, limit],
      ),
    );
    return Number(result.numAffectedRows ?? 0);
  }

  /**
   * One workspace's share of the queues (the console's Queue page, docs/console.md): per queue, its jobs
   * waiting (created or to be retried, due or not), active and failed, and the age of its oldest job
   * ready to run; and its latest failed jobs with their error. A job's workspace is the one its data
   * names, directly (fan-out pages) or through its execution, run or message; a job whose workspace
   * cannot be told is nobody's and is never shown (the operator's view of all of them is /metrics).
   */
  async workspaceReadings(db: Db, workspaceId: number, failedLimit = 20) {
    const owned = `(select j.*, coalesce(
          (j.data->>'workspaceId')::int,
          (select e.workspace_id from executions e where e.id = j.data->>'executionId'),
          (select r.workspace_id from workflow_runs r where r.id = coalesce(j.data->>'runId', j.data->'runIds'->>0)),
          (select m.workspace_id from messages m where m.id = coalesce(j.data->>'messageId', j.data->'messageIds'->>0))) as workspace_id
        from ${this.schema}.job j
        where j.name = any($2::text[]) and j.state in ('created', 'retry', 'active', 'failed')) o`;
    const counts = await db.executeQuery<{ name: string; state: string; n: number; oldest: number | null }>(
      CompiledQuery.raw(
        `select name, state, count(*)::int as n,
           extract(epoch from now() - min(greatest(created_on, start_after))
             filter (where state < 'active' and start_after <= now()))::float8 as oldest
         from ${owned} where workspace_id = $1 group by name, state`,
        [workspaceId, ALL_QUEUES],
      ),
    );
    const failed = await db.executeQuery<{
      id: string;
      name: string;
      retry_count: number;
      created_on: Date;
      completed_on: Date | null;
      output: unknown;
    }>(
      CompiledQuery.raw(
        `select id, name, retry_count, created_on, completed_on, output from ${owned}
         where workspace_id = $1 and state = 'failed' order by completed_on desc nulls last, id limit $3`,
        [workspaceId, ALL_QUEUES, failedLimit],
      ),
    );
    const queues = ALL_QUEUES.map((name) => {
      const rows = counts.rows.filter((row) => row.name === name);
      const count = (...states: string[]) =>
        rows.filter((row) => states.includes(row.state)).reduce((sum, row) => sum + Number(row.n), 0);
      const oldest = rows.map((row) => row.oldest).filter((v): v is number => v !== null);
      return {
        name,
        waiting: count('created', 'retry'),
        active: count('active'),
        failed: count('failed'),
        oldest_job_age_seconds: oldest.length ? Math.max(0, Math.round(Math.max(...oldest.map(Number)))) : null,
      };
    });
    return { queues, failed: failed.rows };
  }

  /** Stops fetching, waits for handlers in flight (up to `timeoutMs`), and leaves the database open. */
  async stop(timeoutMs = 8000) {
    this.stopping.abort();
    for (const state of this.wakes.values()) clearTimeout(state.timer);
    if (!this.started) return;
    this.started = false;
    await this.boss.stop({ graceful: true, close: true, timeout: timeoutMs });
  }
}
