import {
  statusCallbackPath,
  type DeliveryChannel,
  type DeliveryOutcome,
  type MessageRecipient,
  type Provider,
} from '../channels/provider.js';
import { deadline } from '../channels/deadline.js';
import type { OutboundPolicy } from '../channels/outbound.js';
import type { ProviderRegistry } from '../channels/registry.js';
import type { RenderMemo, RenderOutcome, RenderRequest } from '../channels/rendering.js';
import type { Db, Trx } from '../db/database.js';
import { openConfig, type Sealer } from '../domain/vendor-secrets.js';
import { outcomeFromNetworkError } from '../channels/provider.js';
import { timeoutOf } from '../channels/providers/shared.js';
import {
  findMessagesToDeliver,
  type DeliveryUpdate,
  type MessageRow,
  type MessageToDeliver,
} from '../repositories/messages.js';
import { findRuns, type LockedRun } from '../repositories/runs.js';
import { findChannelVendors } from '../repositories/vendors.js';
import { findWorkspaceSlug } from '../repositories/workspaces.js';
import { afterFailure, vendorForAttempt } from '../domain/vendor-failover.js';
import { markTemplateTriggered } from '../repositories/templates.js';
import { FailTogether } from './job-handler.js';
import { jobId } from './job-ids.js';
import { saveStatusChanges } from './message-status.js';
import { whenDatabaseAnswers } from './outage.js';
import { deliveryQueue, type Queue } from './queue.js';
import { loadRunsWorld, renderRequestOf, type RunNamespaces } from './run-context.js';
import type { RunRecipient } from './types.js';
import { countDelivery } from '../telemetry/metrics.js';
import { retireDeadAddresses } from './provider-feedback.js';
import { traceProviderCall } from '../telemetry/spans.js';

/**
 * One message to its channel (docs/spec/engine.md §4): rendered, then stored (inbox) or handed to the
 * vendor's provider. Transient failures are retried by a delayed job on the same message, each
 * attempt appended to it: the first retry within 5 s (or after Retry-After, capped at 5 min), then
 * exponential with jitter, at most 8 attempts within an hour; the last failure is `delivery_failure`.
 */

/**
 * Renders one message; `db` is the handle to read templates with (a run step's transaction), else the
 * renderer's own; `memo` holds the template reads a batch's renders share.
 */
export type Renderer = (request: RenderRequest, db?: Db, memo?: RenderMemo) => Promise<RenderOutcome>;

export interface DeliveryDeps {
  db: Db;
  queue: Queue;
  secretBox: Sealer;
  render: Renderer;
  providers: ProviderRegistry;
  outbound: OutboundPolicy;
  now: () => number;
  /**
   * Caps every provider call (tests shorten it). Absent, a call may take its vendor's `timeout_ms` (100 to 60,000,
   * default 10,000), which the provider applies itself, and the engine ends it a moment after as a backstop.
   */
  deliveryTimeoutMs?: number;
  /** Multiplies retry delays (tests shorten them; 1 in production). */
  retryDelayScale: number;
  /** PUBLIC_URL: where vendors' status callbacks reach Herald; absent, none is asked for. */
  publicUrl?: string;
  /** The most provider calls this worker makes at once (SendContext.parallelSends: the SMTP pool's size). */
  parallelSends?: number;
  /**
   * When this process last marked each template triggered (workspace and slug): `last_triggered_at` moves only
   * when a second has passed, so a mark within the second is skipped without a statement.
   */
  templatesMarked?: Map<string, number>;
}

/** How long after its vendor's `timeout_ms` the engine ends a call the provider has not (a provider names its own timeout). */
const BACKSTOP_MS = 1000;
const NEVER = new AbortController().signal;
const FIRST_RETRY_MS = 5000;
/** How often `last_triggered_at` moves (repositories/templates.ts `markTemplateTriggered`). */
const TEMPLATE_MARK_MS = 1000;
const MARKS_KEPT = 10_000;

/** The wait before attempt `attempt + 1`: 2.5–5 s, then doubling, with jitter; Retry-After wins (already capped). */
export function retryDelayMs(attempt: number, retryAfterMs: number | undefined, random = Math.random()) {
  if (retryAfterMs !== undefined) return retryAfterMs;
  const ceiling = Math.min(FIRST_RETRY_MS * 2 ** (attempt - 1), 10 * 60_000);
  return Math.round(ceiling * (0.5 + random / 2));
}

const recipientOf = (row: MessageRow): MessageRecipient =>
  row.recipient_type === 'object'
    ? { object_type: row.object_type!, id: row.object_id! }
    : { distinct_id: row.distinct_id! };

/** One attempt of one message: a retry's or a failover's job, a job queued before batches, or one of a batch's messages. */
export interface DeliveryJob {
  messageId: string;
  attempt: number;
  /** The vendor this attempt goes to (a retry's, or a failover's); absent: the channel's first (domain/vendor-failover.ts). */
  vendorId?: string;
}

/** The first attempts of up to DELIVERY_JOB_MESSAGES messages of one channel, queued by the run step that wrote them. */
export interface DeliveryBatchJob {
  messageIds: string[];
  attempt: 1;
}

/** A delivery queue's job data: a batch of first attempts, or one message's attempt (docs/engine.md, "Deliveries"). */
export type DeliveryJobData = DeliveryBatchJob | DeliveryJob;

/**
 * The most messages a batch job carries. A worker's delivery slot fetches DELIVERY_FETCH jobs at once, so it holds at
 * most DELIVERY_JOB_MESSAGES × DELIVERY_FETCH = 20 messages; a queue has `deliverySlots(concurrency)` slots, so a
 * worker holds about `concurrency` × 10 messages per delivery queue: what a killed worker may send again.
 */
export const DELIVERY_JOB_MESSAGES = 10;
export const DELIVERY_FETCH = 2;

/**
 * A delivery queue's slots: half the worker's concurrency (at least one), each holding twice the messages a slot of
 * another queue would (BENCHMARKS.md, "Provider fan-out, fifth session"). The messages in flight stay what
 * `concurrency` slots of 10 held, while each batch's fixed statements (the fetch, the messages and vendors read, the
 * outcomes written, the completion) are paid once per 20 messages instead of once per 10.
 */
export const deliverySlots = (concurrency: number) => Math.max(1, Math.ceil(concurrency / 2));

/** A delivery job's attempts: each message of a batch at its first attempt, or the job's one. */
export const attemptsOf = (data: DeliveryJobData): DeliveryJob[] =>
  'messageIds' in data ? data.messageIds.map((messageId) => ({ messageId, attempt: 1 })) : [data];

/** The jobs that queue a run step's new messages of one channel for delivery, DELIVERY_JOB_MESSAGES at a time. */
export function deliveryJobs(messageIds: string[]) {
  const jobs = [];
  for (let i = 0; i < messageIds.length; i += DELIVERY_JOB_MESSAGES) {
    const ids = messageIds.slice(i, i + DELIVERY_JOB_MESSAGES);
    // Named after its messages: a step run again queues the same job once (and inserts no message anyway).
    jobs.push({
      data: { messageIds: ids, attempt: 1 } satisfies DeliveryBatchJob,
      options: { id: jobId('deliver', ...ids, 1) },
    });
  }
  return jobs;
}

/** A message its job may still deliver: not settled, and this attempt not yet recorded (at-least-once). */
const deliverable = (row: MessageRow | undefined, job: DeliveryJob): row is MessageRow =>
  row !== undefined &&
  (row.status === 'to_be_triggered' || row.status === 'triggered') &&
  row.attempts.length === job.attempt - 1;

async function renderMessage(
  deps: DeliveryDeps,
  row: MessageRow,
  run: LockedRun,
  recipient: RunRecipient,
  namespaces: RunNamespaces,
  memo?: RenderMemo,
): Promise<RenderOutcome> {
  const templateSlug = (row.template as { slug?: string } | null)?.slug ?? '';
  try {
    return await deps.render(
      renderRequestOf(run, recipient, namespaces, templateSlug, row.channel as DeliveryChannel),
      undefined,
      memo,
    );
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** An inbox message stored: delivered, with no provider (in the run's step, or by its delivery job). */
export const storedInInbox = (rendered: Extract<RenderOutcome, { ok: true }>, now: number): DeliveryUpdate => ({
  status: 'delivered',
  reason: null,
  error: null,
  content: rendered.content,
  template: rendered.template,
  attempt: { at: new Date(now).toISOString(), outcome: 'stored' },
  triggered: true,
  sent: true,
  delivered: true,
});

export const renderFailed = (rendered: { reason: string }): DeliveryUpdate => ({
  status: 'trigger_failed',
  reason: 'render_failed',
  error: { message: rendered.reason },
});

/** A vendor a channel delivers through, with its provider and opened config. */
interface ChosenVendor {
  id: string;
  provider: Provider;
  name: string;
  nickname: string | null;
  config: Record<string, unknown>;
  fallbackAfterSeconds: number;
  /** Where its provider's status callbacks go (a provider with `statusCallbacks`, and PUBLIC_URL set). */
  statusCallbackUrl?: string;
}

/** A channel's active vendors with a known provider, in failover order (default first, then priority). */
async function channelVendors(deps: DeliveryDeps, workspaceId: number, channel: string): Promise<ChosenVendor[]> {
  const rows = await findChannelVendors(deps.db, workspaceId, channel);
  const calledBack = (name: string) => deps.providers.get(name)?.statusCallbacks === true;
  const slug =
    deps.publicUrl && rows.some((vendor) => calledBack(vendor.provider))
      ? await findWorkspaceSlug(deps.db, workspaceId)
      : undefined;
  const root = deps.publicUrl?.replace(/\/+$/, '');
  return rows.flatMap((vendor) => {
    const provider = deps.providers.get(vendor.provider);
    if (!provider) return [];
    const callback =
      slug !== undefined && provider.statusCallbacks
        ? { statusCallbackUrl: `${root}${statusCallbackPath(vendor.provider, slug, vendor.id)}` }
        : {};
    return [
      {
        id: vendor.id,
        provider,
        name: vendor.provider,
        nickname: vendor.nickname,
        config: openConfig(vendor.config, deps.secretBox),
        fallbackAfterSeconds: vendor.fallback_after_seconds,
        ...callback,
      },
    ];
  });
}

const noProvider = (row: MessageRow): DeliveryUpdate => {
  const vendorRef = (row.vendor as { name: string } | null) ?? null;
  return {
    status: 'trigger_failed',
    reason: 'no_provider',
    error: {
      message: `no active vendor with a known provider for ${row.channel}${vendorRef ? ` (was ${vendorRef.name})` : ''}`,
    },
  };
};

/** What one provider call leaves on its message, and the retry it schedules (if any). */
interface Sent {
  update: DeliveryUpdate;
  outcome: DeliveryOutcome;
  retry?: { attempt: number; vendorId: string; startAfter: Date };
}

/**
 * One call to the vendor's provider, within its `timeout_ms`, ended early when `signal` aborts (the worker stops);
 * its outcome as the message's update (§4 retry rules).
 */
async function callProvider(
  deps: DeliveryDeps,
  row: MessageRow,
  job: DeliveryJob,
  vendors: readonly ChosenVendor[],
  vendor: ChosenVendor,
  rendered: Rendered,
  signal: AbortSignal,
): Promise<Sent> {
  const startedAt = deps.now();
  // Cleared when the call ends, with the provider's own deadline made under it (channels/deadline.ts).
  const call = deadline(signal, Math.min(timeoutOf(vendor.config) + BACKSTOP_MS, deps.deliveryTimeoutMs ?? Infinity));
  let outcome: DeliveryOutcome;
  try {
    outcome = await traceProviderCall({ channel: row.channel, provider: vendor.name, messageId: row.id }, () =>
      vendor.provider.send(
        { id: vendor.id, provider: vendor.name, nickname: vendor.nickname, config: vendor.config },
        {
          messageId: row.id,
          executionId: row.run_id,
          channel: row.channel as DeliveryChannel,
          recipient: recipientOf(row),
          channelIdentity: row.channel_identity,
          tenantId: row.tenant_id,
          workflow: { slug: row.workflow_slug, version_id: String(row.version_no), node_ref: row.node_ref },
          content: rendered.content,
        },
        call.signal,
        { outbound: deps.outbound, statusCallbackUrl: vendor.statusCallbackUrl, parallelSends: deps.parallelSends },
      ),
    );
  } catch (error) {
    outcome = outcomeFromNetworkError(error);
  } finally {
    call.clear();
  }
  const ms = deps.now() - startedAt;
  countDelivery(row.channel, vendor.name, outcome.kind, ms / 1000);
  const attempt = {
    at: new Date(startedAt).toISOString(),
    vendor: { id: vendor.id, name: vendor.name, nickname: vendor.nickname },
    ms,
    outcome: outcome.kind,
    ...(outcome.kind === 'sent' ? {} : { reason: outcome.reason }),
    provider_response: outcome.providerResponse ?? null,
  };
  const common = {
    attempt,
    // What the message was recorded with stays as it is: the update does not write it again.
    ...(rendered.stored ? {} : { content: rendered.content, template: rendered.template }),
    vendor: { name: vendor.name, nickname: vendor.nickname },
    triggered: true,
  };
  if (outcome.kind === 'sent')
    return {
      outcome,
      update: {
        ...common,
        status: 'sent_by_vendor',
        sent: true,
        reason: null,
        error: null,
        ...(outcome.providerMessageId ? { provider_message_id: outcome.providerMessageId } : {}),
      },
    };
  const retryAfterMs = outcome.kind === 'retry' ? outcome.retryAfterMs : undefined;
  const next = afterFailure({
    outcome,
    vendors,
    current: vendor,
    attempts: row.attempts,
    startedAt,
    createdAt: row.created_at.getTime(),
    now: deps.now(),
    delayMs: (attemptHere) => retryDelayMs(attemptHere, retryAfterMs) * deps.retryDelayScale,
  });
  if (next.kind === 'give_up')
    return {
      outcome,
      update: {
        ...common,
        status: 'delivery_failure',
        reason: next.reason,
        error: { message: outcome.reason, provider_response: outcome.providerResponse ?? null },
      },
    };
  return {
    outcome,
    update: { ...common, status: 'triggered', error: { message: outcome.reason } },
    retry: {
      attempt: job.attempt + 1,
      vendorId: next.vendorId,
      startAfter: new Date(deps.now() + (next.kind === 'retry' ? next.delayMs : 0)),
    },
  };
}

const retryJob = (row: MessageRow, retry: NonNullable<Sent['retry']>) => ({
  data: { messageId: row.id, attempt: retry.attempt, vendorId: retry.vendorId },
  options: { id: jobId('deliver', row.id, retry.attempt), startAfter: retry.startAfter },
});

/**
 * A fetched batch of deliveries, prepared (docs/engine.md, "Deliveries"): its messages read in one statement, with
 * their runs' execution status; each channel's vendors read (and their configs opened) once. A message rendered by its
 * step (or by an earlier attempt) is sent as stored; one recorded without its content (queued before steps rendered
 * provider messages) is rendered here, its runs, users and tenants read set-based. A single job is a batch of one. What
 * needs no provider call is `settled` here: a cancelled run, a render failure, no vendor, and the inbox (stored as
 * delivered: inbox jobs queued before the inbox was delivered in the run's step). A failure here sends nothing.
 */
export async function prepareDeliveries(deps: DeliveryDeps, jobs: DeliveryJob[]) {
  const { db } = deps;
  const ids = [...new Set(jobs.map((j) => j.messageId))];
  const rows = new Map((await findMessagesToDeliver(db, ids)).map((r) => [r.id, r]));
  const due: { job: DeliveryJob; row: MessageToDeliver }[] = [];
  const seen = new Set<string>();
  for (const job of jobs) {
    const row = rows.get(job.messageId);
    // A message fetched twice in one batch (a duplicate job) is delivered once.
    if (!deliverable(row, job) || seen.has(row.id)) continue;
    seen.add(row.id);
    due.push({ job, row });
  }
  const render = await rendersAtDelivery(
    deps,
    due.map((d) => d.row).filter((row) => storedContent(row) === undefined),
  );
  const vendors = new Map<string, Promise<ChosenVendor[]>>();
  const templatesUsed = new Map<string, { workspaceId: number; slug: string }>();
  const settled: Settled[] = [];
  const calls: {
    job: DeliveryJob;
    row: MessageRow;
    vendors: ChosenVendor[];
    vendor: ChosenVendor;
    rendered: Rendered;
  }[] = [];
  for (const { job, row } of due) {
    if (row.execution_status === null) continue;
    if (row.execution_status === 'cancelled') {
      settled.push({ row, update: { status: 'not_to_be_triggered', reason: 'cancelled' } });
      continue;
    }
    const stored = storedContent(row);
    const rendered = stored ?? (await render(row));
    if (!rendered.ok) {
      settled.push({ row, update: renderFailed(rendered) });
      continue;
    }
    if (rendered.template)
      templatesUsed.set(`${row.workspace_id}\u0000${rendered.template.slug}`, {
        workspaceId: row.workspace_id,
        slug: rendered.template.slug,
      });
    if (row.channel === 'inbox') {
      settled.push({ row, update: storedInInbox(rendered, deps.now()) });
      continue;
    }
    const key = `${row.workspace_id}\u0000${row.channel}`;
    let chosen = vendors.get(key);
    if (!chosen) vendors.set(key, (chosen = channelVendors(deps, row.workspace_id, row.channel)));
    const ordered = await chosen;
    const vendor = vendorForAttempt(ordered, row.attempts, job.vendorId);
    if (!vendor) settled.push({ row, update: noProvider(row) });
    else calls.push({ job, row, vendors: ordered, vendor, rendered });
  }
  for (const [key, { workspaceId, slug }] of templatesUsed) {
    const now = deps.now();
    const marked = deps.templatesMarked;
    if (now - (marked?.get(key) ?? -Infinity) < TEMPLATE_MARK_MS) continue;
    await markTemplateTriggered(db, workspaceId, slug, new Date(now));
    if (marked && marked.size >= MARKS_KEPT) marked.clear();
    marked?.set(key, now);
  }
  return { settled, calls };
}

/** What a message is sent with: rendered now, or as stored (`stored`: its update leaves content and template as they are). */
type Rendered = Extract<RenderOutcome, { ok: true }> & { stored?: true };

/** The content a message was recorded with, by its step or an earlier attempt; none, it is rendered at delivery. */
const storedContent = ({ content, template }: MessageRow): Rendered | undefined =>
  content !== null && template?.version_no !== undefined ? { ok: true, content, template, stored: true } : undefined;

/**
 * Renders the messages recorded without content as their steps would have: their runs, users and tenants read
 * set-based (nothing read when there are none), each template pointer once.
 */
async function rendersAtDelivery(deps: DeliveryDeps, rows: MessageRow[]) {
  const runs = rows.length
    ? new Map((await findRuns(deps.db, [...new Set(rows.map((row) => row.run_id))])).map((r) => [r.id, r]))
    : new Map<string, LockedRun>();
  const world = await loadRunsWorld(deps.db, runs.values());
  const memo: RenderMemo = new Map();
  return async (row: MessageRow): Promise<RenderOutcome> => {
    const run = runs.get(row.run_id)!;
    const recipient = await world.recipient(run);
    return renderMessage(deps, row, run, recipient, world.namespaces(run, recipient), memo);
  };
}

/** A message's outcome, decided without a provider call. */
interface Settled {
  row: MessageRow;
  update: DeliveryUpdate;
}

/**
 * A prepared batch sent: the provider calls side by side (each with its own timeout, ended when its job's signal
 * aborts), then every outcome saved at once (src/engine/message-status.ts), tried again across a database outage
 * (the calls were made). A failure here, once a call was made, is `DeliveriesFailed`: the batch's jobs fail together
 * and the queue retries each (at-least-once, as one job's would be).
 */
export async function sendDeliveries(
  deps: DeliveryDeps,
  prepared: Awaited<ReturnType<typeof prepareDeliveries>>,
  signalOf: (messageId: string) => AbortSignal = () => NEVER,
) {
  const sent = await Promise.all(
    prepared.calls.map(async ({ job, row, vendors, vendor, rendered }) => ({
      row,
      ...(await callProvider(deps, row, job, vendors, vendor, rendered, signalOf(row.id))),
    })),
  );
  const changes = [...prepared.settled, ...sent];
  // Saving gives up only when the worker stops; with no call made there is nothing to keep.
  const stopped = prepared.calls.length ? deps.queue.stopSignal : AbortSignal.abort();
  try {
    // The retries' jobs in the transaction of the outcomes; none, the outcomes alone are one statement.
    const retries = sent.filter((s) => s.retry !== undefined);
    const queueRetries = async (trx: Trx) => {
      for (const channel of new Set(retries.map((r) => r.row.channel)))
        await deps.queue.sendMany(
          trx,
          deliveryQueue(channel),
          retries.filter((r) => r.row.channel === channel).map((r) => retryJob(r.row, r.retry!)),
        );
    };
    await whenDatabaseAnswers(
      () => saveStatusChanges(deps.db, changes, retries.length ? queueRetries : undefined),
      stopped,
    );
  } catch (error) {
    if (prepared.calls.length === 0) throw error;
    throw new FailTogether(error);
  }
  await retireDeadAddresses(deps.db, sent);
}

/** Fetched delivery jobs (a batch job's messages, or one message each) delivered together: prepared, then sent. */
export async function deliverBatch(deps: DeliveryDeps, jobs: { data: DeliveryJobData; signal: AbortSignal }[]) {
  const prepared = await prepareDeliveries(
    deps,
    jobs.flatMap((job) => attemptsOf(job.data)),
  );
  const signals = new Map(jobs.flatMap((job) => attemptsOf(job.data).map((a) => [a.messageId, job.signal] as const)));
  await sendDeliveries(deps, prepared, (messageId) => signals.get(messageId) ?? NEVER);
}

/**
 * A delivery job whose batch failed, on its own: each of its messages as a batch of one, side by side, so a message
 * that cannot be prepared holds back none of the others. Any failure fails the job; the queue retries it, and the
 * messages whose attempt was recorded are skipped then (`deliverable`).
 */
export async function deliverAlone(deps: DeliveryDeps, job: { data: DeliveryJobData; signal: AbortSignal }) {
  const results = await Promise.allSettled(
    attemptsOf(job.data).map((data) => deliverBatch(deps, [{ data, signal: job.signal }])),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}
