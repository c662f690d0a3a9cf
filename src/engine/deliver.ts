import type { DeliveryChannel, DeliveryOutcome, MessageRecipient } from '../channels/provider.js';
import type { OutboundPolicy } from '../channels/outbound.js';
import type { ProviderRegistry } from '../channels/registry.js';
import type { RenderMemo, RenderOutcome, RenderRequest } from '../channels/rendering.js';
import type { Db } from '../db/database.js';
import { openConfig, type Sealer } from '../domain/vendor-secrets.js';
import { outcomeFromNetworkError } from '../channels/provider.js';
import { findMessageById, saveDelivery, type MessageRow } from '../repositories/messages.js';
import { findRun } from '../repositories/runs.js';
import { publishInboxEvents } from '../services/feed.js';
import { findVendor } from '../repositories/vendors.js';
import { markTemplateTriggered } from '../repositories/templates.js';
import { jobId } from './job-ids.js';
import { deliveryQueue, type Queue } from './queue.js';
import { loadNamespaces, loadRecipient } from './run-context.js';

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
  /** The longest a provider call may take before it counts as a timeout (retried). */
  deliveryTimeoutMs: number;
  /** Multiplies retry delays (tests shorten them; 1 in production). */
  retryDelayScale: number;
}

export const MAX_ATTEMPTS = 8;
const RETRY_WINDOW_MS = 60 * 60_000;
const FIRST_RETRY_MS = 5000;

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

export async function deliverMessage(deps: DeliveryDeps, job: { messageId: string; attempt: number }) {
  const { db } = deps;
  const row = await findMessageById(db, job.messageId);
  if (!row || (row.status !== 'to_be_triggered' && row.status !== 'triggered')) return;
  // A job that already ran (at-least-once) finds its attempt recorded and stops.
  if ((row.attempts as unknown[]).length !== job.attempt - 1) return;
  const run = await findRun(db, row.run_id);
  if (!run) return;
  if (run.execution_status === 'cancelled') {
    await saveDelivery(db, row.id, { status: 'not_to_be_triggered', reason: 'cancelled' });
    return;
  }
  const recipient = await loadRecipient(db, run);
  const namespaces = await loadNamespaces(db, run, recipient);
  const templateSlug = (row.template as { slug?: string } | null)?.slug ?? '';
  let rendered: RenderOutcome;
  try {
    rendered = await deps.render({
      workspaceId: String(row.workspace_id),
      templateSlug,
      channel: row.channel as DeliveryChannel,
      tenantId: row.tenant_id,
      locale: typeof recipient.properties.$locale === 'string' ? recipient.properties.$locale : null,
      context: {
        data: namespaces.data,
        $recipient: namespaces.$recipient,
        $actor: namespaces.$actor,
        $brand: namespaces.$brand,
        recipient: { subscription: (run.subscription as Record<string, unknown> | null) ?? undefined },
      },
    });
  } catch (error) {
    rendered = { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!rendered.ok) {
    await saveDelivery(db, row.id, {
      status: 'trigger_failed',
      reason: 'render_failed',
      error: { message: rendered.reason },
    });
    return;
  }
  if (rendered.template)
    await markTemplateTriggered(db, row.workspace_id, rendered.template.slug, new Date(deps.now()));
  if (row.channel === 'inbox') {
    await saveDelivery(db, row.id, {
      status: 'delivered',
      content: rendered.content,
      template: rendered.template,
      attempt: { at: new Date(deps.now()).toISOString(), outcome: 'stored' },
      triggered: true,
      sent: true,
      delivered: true,
    });
    if (row.recipient_type === 'user' && row.distinct_id !== null)
      await publishInboxEvents(db, [
        {
          workspaceId: row.workspace_id,
          distinctId: row.distinct_id,
          tenantId: row.tenant_id,
          event: 'new_notification',
          data: { n_id: row.id },
        },
      ]);
    return;
  }
  const vendorRef = (row.vendor as { name: string } | null) ?? null;
  const vendors = await db
    .selectFrom('vendors')
    .select('id')
    .where('workspace_id', '=', row.workspace_id)
    .where('channel', '=', row.channel)
    .where('is_active', '=', true)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .limit(1)
    .execute();
  const vendor = vendors[0] ? await findVendor(db, row.workspace_id, vendors[0].id) : undefined;
  const provider = vendor ? deps.providers.get(vendor.provider) : undefined;
  if (!vendor || !provider) {
    await saveDelivery(db, row.id, {
      status: 'trigger_failed',
      reason: 'no_provider',
      error: {
        message: `no active vendor with a known provider for ${row.channel}${vendorRef ? ` (was ${vendorRef.name})` : ''}`,
      },
    });
    return;
  }
  const startedAt = deps.now();
  let outcome: DeliveryOutcome;
  try {
    outcome = await provider.send(
      {
        id: vendor.id,
        provider: vendor.provider,
        nickname: vendor.nickname,
        config: openConfig(vendor.config, deps.secretBox),
      },
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
      AbortSignal.timeout(deps.deliveryTimeoutMs),
      { outbound: deps.outbound },
    );
  } catch (error) {
    outcome = outcomeFromNetworkError(error);
  }
  const attempt = {
    at: new Date(startedAt).toISOString(),
    ms: deps.now() - startedAt,
    outcome: outcome.kind,
    ...(outcome.kind === 'sent' ? {} : { reason: outcome.reason }),
    provider_response: outcome.providerResponse ?? null,
  };
  const common = {
    attempt,
    content: rendered.content,
    template: rendered.template,
    vendor: { name: vendor.provider, nickname: vendor.nickname },
    triggered: true,
  };
  if (outcome.kind === 'sent') {
    await saveDelivery(db, row.id, { ...common, status: 'sent_by_vendor', sent: true, reason: null, error: null });
    return;
  }
  const wait = outcome.kind === 'retry' ? retryDelayMs(job.attempt, outcome.retryAfterMs) * deps.retryDelayScale : 0;
  const givenUp =
    outcome.kind === 'failed' ||
    job.attempt >= MAX_ATTEMPTS ||
    deps.now() - row.created_at.getTime() + wait > RETRY_WINDOW_MS;
  if (givenUp) {
    await saveDelivery(db, row.id, {
      ...common,
      status: 'delivery_failure',
      reason: outcome.kind === 'failed' ? 'provider_refused' : 'retries_exhausted',
      error: { message: outcome.reason, provider_response: outcome.providerResponse ?? null },
    });
    return;
  }
  await db.transaction().execute(async (trx) => {
    await saveDelivery(trx, row.id, { ...common, status: 'triggered', error: { message: outcome.reason } });
    await deps.queue.send(
      trx,
      deliveryQueue(row.channel),
      { messageId: row.id, attempt: job.attempt + 1 },
      { id: jobId('deliver', row.id, job.attempt + 1), startAfter: new Date(deps.now() + wait) },
    );
  });
}
