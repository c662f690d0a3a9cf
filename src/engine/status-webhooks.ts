import { createHmac } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { deadline } from '../channels/deadline.js';
import { DestinationRefused, postGuarded, type OutboundPolicy } from '../channels/outbound.js';
import { outcomeFromNetworkError } from '../channels/provider.js';
import type { PGlite } from '@electric-sql/pglite';
import type { Db } from '../db/database.js';
import { NotifyListener } from '../db/notify-listener.js';
import type { Sealer } from '../domain/vendor-secrets.js';
import {
  anyUnqueuedDelivery,
  findDeliveriesWithEndpoints,
  fixDeliveryPayloads,
  markDeliveriesQueued,
  pickUnqueuedDeliveries,
  recordDeliveredAttempts,
  recordDeliveryAttempt,
  type DeliveryWithEndpoint,
} from '../repositories/webhook-deliveries.js';
import { webhookEventBodies } from '../services/webhook-events.js';
import { jobId } from './job-ids.js';
import { whenDatabaseAnswers } from './outage.js';
import { QUEUES, type Queue } from './queue.js';

/**
 * Delivery-status webhooks out (docs/webhooks.md). The messages trigger (migrations/2026-11-27T70-webhook-endpoints.ts)
 * writes each event into the outbox in the transaction of the status change it reports; the relay fixes the events'
 * bodies and moves them into the durable queue, WEBHOOK_JOB_EVENTS first attempts a job; a job posts its events to
 * their endpoints, signed as Standard Webhooks, and a failed one queues its next attempt (a job of its own) with
 * backoff until 24 h after the event. Every attempt carries the event's id as `webhook-id`.
 */

/** How long one attempt may take, connection to answer. */
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** The most of an answer read (kept in part on a failed attempt); past it the read stops, the status decides. */
export const WEBHOOK_ANSWER_LIMIT = 64 * 1024;
/** Attempts go on until this long after the event. */
export const WEBHOOK_RETRY_WINDOW_MS = 24 * 60 * 60_000;
const FIRST_RETRY_MS = 5000;
const LONGEST_RETRY_MS = 60 * 60_000;
/**
 * Where the outbox says it has new events (migrations/2026-11-29T30-webhook-relay-notify.ts): the relay LISTENs and
 * moves them on when told. It also looks this often unasked, so an event whose notification was lost (the LISTEN
 * connection dropped) waits at most this long, and is never left behind.
 */
export const WEBHOOK_CHANNEL = 'herald_webhooks';
export const RELAY_FALLBACK_MS = 30_000;
const RELAY_BATCH = 500;
/**
 * A busy outbox is relayed at most this often: the events written meanwhile make the next pass's batch, and its jobs,
 * larger, instead of a pass (a transaction, a job) for every event or two. The first pass after a quiet spell, and
 * the pass after a full batch, go at once.
 */
export const RELAY_GATHER_MS = 50;
/**
 * The most first attempts one job carries: the relay queues its batch in slices of this many. A worker's slot fetches
 * WEBHOOK_FETCH jobs at once and posts their events side by side: at most 100 POSTs in flight per slot.
 */
export const WEBHOOK_JOB_EVENTS = 25;
export const WEBHOOK_FETCH = 4;
const KEPT_ANSWER_CHARS = 1000;

/** The wait before attempt `attempt + 1`: 2.5–5 s, then doubling up to an hour, with jitter. */
export function webhookRetryDelayMs(attempt: number, random = Math.random()) {
  const ceiling = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), LONGEST_RETRY_MS);
  return Math.round(ceiling * (0.5 + random / 2));
}

/**
 * A job's attempts: the first attempts of up to WEBHOOK_JOB_EVENTS events (the relay's), or one event's later attempt
 * (`deliveryId`: a retry, and every job queued before first attempts were batched).
 */
export type WebhookJob = { deliveryIds: string[]; attempt: 1 } | { deliveryId: string; attempt: number };

const deliveryIdsOf = (job: WebhookJob) => ('deliveryIds' in job ? job.deliveryIds : [job.deliveryId]);

const retryJob = (deliveryId: string, attempt: number, startAfter: Date) => ({
  data: { deliveryId, attempt } satisfies WebhookJob,
  options: { id: jobId('webhook', deliveryId, attempt), startAfter },
});

/** An event is in one first-attempt job only: its first event names it. */
const firstAttemptsJob = (deliveryIds: string[]) => ({
  data: { deliveryIds, attempt: 1 } satisfies WebhookJob,
  options: { id: jobId('webhook', deliveryIds[0]!, 1) },
});

/**
 * Moves up to RELAY_BATCH outbox events into the queue, in one transaction, their bodies built from their messages
 * and fixed as they are marked queued; how many it moved. An empty outbox (no endpoint, or all queued) costs one read
 * and no transaction.
 */
export async function relayWebhookEvents(db: Db, queue: Queue) {
  if (!(await anyUnqueuedDelivery(db))) return 0;
  return db.transaction().execute(async (trx) => {
    const picked = await pickUnqueuedDeliveries(trx, RELAY_BATCH);
    if (picked.length === 0) return 0;
    const bodies = await webhookEventBodies(trx, picked);
    await markDeliveriesQueued(
      trx,
      picked.map((row) => ({ id: row.id, payload: bodies.get(row.id)! })),
    );
    const jobs = [];
    for (let i = 0; i < picked.length; i += WEBHOOK_JOB_EVENTS)
      jobs.push(firstAttemptsJob(picked.slice(i, i + WEBHOOK_JOB_EVENTS).map((row) => row.id)));
    await queue.sendMany(trx, QUEUES.webhook, jobs);
    return picked.length;
  });
}

/**
 * The relay loop of a worker, until its queue stops: a pass at start, at each notification (and at once again when
 * one came during a pass, or a pass found a full batch), at each reconnection of the LISTEN connection (what was
 * notified meanwhile was lost), and every RELAY_FALLBACK_MS. A failed pass is logged and tried again at the next.
 */
export function startWebhookRelay(deps: {
  db: Db;
  queue: Queue;
  log: { error(o: object, m: string): void; warn?(o: object, m: string): void };
  listen: { url?: string; pglite?: PGlite };
}) {
  const stop = deps.queue.stopSignal;
  let asked = false;
  let wake: (() => void) | undefined;
  const ask = () => {
    asked = true;
    wake?.();
  };
  const listener = new NotifyListener({
    channel: WEBHOOK_CHANNEL,
    ...deps.listen,
    onDisconnect: (error) => deps.log.warn?.({ err: error }, 'webhook relay listener disconnected: reconnecting'),
    onConnect: ask,
  });
  listener.onPayload(ask);
  const nextCall = () =>
    new Promise<void>((resolve) => {
      if (asked || stop.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        stop.removeEventListener('abort', done);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, RELAY_FALLBACK_MS);
      stop.addEventListener('abort', done, { once: true });
      wake = done;
    });
  const pass = async () => {
    let last = -Infinity;
    while (!stop.aborted) {
      const gather = last + RELAY_GATHER_MS - Date.now();
      if (gather > 0) await delay(gather, undefined, { signal: stop }).catch(() => {});
      asked = false;
      last = Date.now();
      let moved = 0;
      try {
        moved = await relayWebhookEvents(deps.db, deps.queue);
      } catch (error) {
        if (!stop.aborted) deps.log.error({ err: error }, 'webhook relay pass failed; the next one tries again');
      }
      if (moved === RELAY_BATCH) last = -Infinity;
      else await nextCall();
    }
    await listener.stop();
  };
  return listener.start().then(() => {
    void pass();
  });
}

export interface WebhookDeps {
  db: Db;
  queue: Queue;
  secretBox: Sealer;
  outbound: OutboundPolicy;
  now: () => number;
}

type Attempted = { ok: true } | { ok: false; error: Record<string, unknown> };

/** An endpoint's signing key: its secret (`whsec_` + base64) decoded. */
export const signingKey = (secret: string) =>
  Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

/**
 * The Standard Webhooks signature of an attempt, as the `standardwebhooks` package's `Webhook.sign` makes it (`v1,` +
 * base64 HMAC-SHA256 of `id.timestamp.body`), with node's HMAC: the package's own SHA-256, in JavaScript, cost about
 * 70 µs per event (BENCHMARKS.md, "Delivery-status webhooks: batched first attempts").
 */
export function webhookSignature(key: Buffer, id: string, seconds: number, body: string) {
  return `v1,${createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest('base64')}`;
}

/** One POST of the event, signed now with the endpoint's current secret (its decoded `key`). */
async function post(deps: WebhookDeps, url: string, key: Buffer, id: string, body: string, signal: AbortSignal) {
  const seconds = Math.floor(deps.now() / 1000);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Herald-Webhooks',
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': webhookSignature(key, id, seconds, body),
  };
  let response: { status: number; answer: string };
  const within = deadline(signal, WEBHOOK_TIMEOUT_MS);
  try {
    response = await postGuarded(url, { headers, body, signal: within.signal }, deps.outbound, WEBHOOK_ANSWER_LIMIT);
  } catch (error) {
    if (error instanceof DestinationRefused) return { ok: false, error: { message: error.message } } as Attempted;
    const outcome = outcomeFromNetworkError(error);
    return { ok: false, error: { message: 'reason' in outcome ? outcome.reason : String(error) } } as Attempted;
  } finally {
    within.clear();
  }
  if (response.status >= 200 && response.status < 300) return { ok: true } as Attempted;
  return {
    ok: false,
    error: {
      message: `answered ${response.status}`,
      status: response.status,
      answer: response.answer.slice(0, KEPT_ANSWER_CHARS),
    },
  } as Attempted;
}

/**
 * A fetched batch of jobs' attempts (a single job is a batch of one). Before any POST, in a fixed number of
 * statements whatever the batch: the deliveries with their endpoints read (one statement, when the relay fixed their
 * bodies); the bodies of first attempts queued without one (before the relay fixed them) built from their messages
 * and fixed (two more). Answers each job's attempts; the batch's attempts run side by side (a slow receiver holds its
 * own event, and the batch), and those delivered are recorded together once every attempt has its answer.
 */
export async function prepareWebhookAttempts(deps: WebhookDeps, jobs: WebhookJob[]) {
  const { db } = deps;
  const wanted = new Set(jobs.flatMap((job) => deliveryIdsOf(job).map((id) => `${id}:${job.attempt}`)));
  // A job run again (its worker lost) finds its attempts recorded and does nothing for them, or posts again with the
  // same id: at least once, never skipped.
  const rows = (await findDeliveriesWithEndpoints(db, [...new Set(jobs.flatMap(deliveryIdsOf))])).filter(
    (row) => row.status === 'pending' && wanted.has(`${row.id}:${row.attempts + 1}`),
  );
  const unfixed = rows.filter((row) => row.endpoint_active && row.payload === null);
  const bodies = await webhookEventBodies(db, unfixed);
  const fixed = await fixDeliveryPayloads(
    db,
    unfixed.map((row) => ({ id: row.id, payload: bodies.get(row.id)! })),
  );
  const ready = new Map(rows.map((row) => [row.id, { row, body: row.payload ?? fixed.get(row.id) }]));
  const delivered = deliveredTogether(db, ready.size, deps.queue.stopSignal);
  // Each endpoint's secret opened once per batch, not once per event (about 45 µs each).
  const keys = new Map<string, Buffer>();
  const keyOf = (sealed: string) => {
    let key = keys.get(sealed);
    if (!key) keys.set(sealed, (key = signingKey(deps.secretBox.decrypt(sealed))));
    return key;
  };
  return async (job: WebhookJob, signal: AbortSignal) => {
    await Promise.all(
      deliveryIdsOf(job).map((id) => {
        const found = ready.get(id);
        return found && found.row.attempts === job.attempt - 1
          ? attemptWebhook(deps, job.attempt, found.row, found.body, keyOf, delivered, signal)
          : undefined;
      }),
    );
  };
}

/**
 * The delivered attempts of a batch, recorded in one statement once each of its `attempts` has had its answer. The
 * batch's attempts must run side by side (the webhook queue's handler is `parallel`): each waits for the others.
 */
function deliveredTogether(db: Db, attempts: number, stopping: AbortSignal) {
  const delivered: { id: string; attempt: number }[] = [];
  let left = attempts;
  let allAnswered = () => {};
  const answered = new Promise<void>((resolve) => {
    allAnswered = resolve;
  });
  let recorded: Promise<void> | undefined;
  return {
    /** One attempt's answer is in, delivered or not (then it records its own outcome). */
    answered(attempt?: { id: string; attempt: number }) {
      if (attempt) delivered.push(attempt);
      left -= 1;
      if (left === 0) allAnswered();
    },
    /** Resolves once the batch's delivered attempts are recorded. */
    async record() {
      await answered;
      recorded ??= whenDatabaseAnswers(() => recordDeliveredAttempts(db, delivered), stopping);
      await recorded;
    },
  };
}

/** One attempt of one event. A failed one's next attempt is queued in the transaction that records this one. */
async function attemptWebhook(
  deps: WebhookDeps,
  attempt: number,
  row: DeliveryWithEndpoint,
  body: string | null | undefined,
  keyOf: (sealed: string) => Buffer,
  delivered: ReturnType<typeof deliveredTogether>,
  signal: AbortSignal,
) {
  const { db } = deps;
  let attempted: Attempted | undefined;
  try {
    if (!row.endpoint_active) {
      await recordDeliveryAttempt(db, row.id, attempt, {
        status: 'failed',
        error: { message: 'the endpoint was disabled before this event was delivered' },
      });
      return;
    }
    // No body fixed: the delivery went with its endpoint, deleted since it was read.
    if (!body) return;
    attempted = await post(deps, row.url, keyOf(row.secret), row.id, body, signal);
  } finally {
    delivered.answered(attempted?.ok ? { id: row.id, attempt } : undefined);
  }
  if (attempted.ok) {
    await delivered.record();
    return;
  }
  const stopping = deps.queue.stopSignal;
  const wait = webhookRetryDelayMs(attempt);
  const givenUp = deps.now() + wait > new Date(row.occurred_at).getTime() + WEBHOOK_RETRY_WINDOW_MS;
  await whenDatabaseAnswers(
    () =>
      db.transaction().execute(async (trx) => {
        const recorded = await recordDeliveryAttempt(trx, row.id, attempt, {
          status: givenUp ? 'failed' : 'pending',
          error: attempted.error,
        });
        if (!recorded || givenUp) return;
        const next = retryJob(row.id, attempt + 1, new Date(deps.now() + wait));
        await deps.queue.send(trx, QUEUES.webhook, next.data, next.options);
      }),
    stopping,
  );
}
