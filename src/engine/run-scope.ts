import type { Db, Trx } from '../db/database.js';
import { preferenceStateOf } from '../services/user-preferences.js';
import { insertMessages, type NewMessage } from '../repositories/messages.js';
import {
  lockRun,
  lockRuns,
  saveRunProgress,
  saveRunsProgress,
  type LockedRun,
  type RunProgress,
} from '../repositories/runs.js';
import { findTenantOverlay } from '../repositories/tenant-preferences.js';
import { markTemplateTriggered } from '../repositories/templates.js';
import { findPreferenceRowsOfUsers } from '../repositories/user-preferences.js';
import { findActiveVendors } from '../repositories/vendors.js';
import type { RenderMemo, RenderOutcome, RenderRequest } from '../channels/rendering.js';
import type { DeliveryChannel } from '../channels/provider.js';
import { liveCategories } from '../channels/preference-links.js';
import { loadNamespaces as loadNamespacesOne, loadRecipient as loadRecipientOne } from './run-context.js';
import { loadRunsWorld, renderRequestOf, type RunNamespaces } from './run-context.js';
import { deliveryJobs, renderFailed, storedInInbox } from './deliver.js';
import { statusesChanged } from './message-status.js';
import type { DeliveryFacts, RecordedMessage, RunRecipient } from './types.js';
import { deliveryQueue, type Queue } from './queue.js';

/**
 * What a run step reads and writes, for one run or for a batch of them (docs/engine.md, "Batched
 * run steps"). A batch locks its runs in one statement, loads their users, tenants and preferences
 * set-based, and writes every step's messages, delivery jobs and progress in one statement each at
 * the end of its transaction. One run's step reads and writes exactly what it would alone.
 */

/** Renders with the caller's handle: inside a run step, the step's transaction (one PGlite serves one at a time). */
export type StepRenderer = (request: RenderRequest, db: Db, memo?: RenderMemo) => Promise<RenderOutcome>;

export interface RunScope {
  lock(runId: string): Promise<LockedRun | undefined>;
  recipient(run: LockedRun): Promise<RunRecipient>;
  namespaces(run: LockedRun, recipient: RunRecipient): Promise<RunNamespaces>;
  facts(run: LockedRun, recipient: RunRecipient, namespaces: RunNamespaces): Promise<DeliveryFacts>;
  save(runId: string, progress: RunProgress): Promise<void>;
  /** A delivery step's messages, rendered: inbox ones stored at once, the others queued for delivery with their content. */
  writeMessages(
    run: LockedRun,
    recipient: RunRecipient,
    namespaces: RunNamespaces,
    messages: NewMessage[],
  ): Promise<RecordedMessage[]>;
  /** The writes held back by a batch (nothing for one run). */
  flush(): Promise<void>;
}

const blockedOf = (namespaces: RunNamespaces) => {
  const blocked = namespaces.tenantSettings.blocked_channels;
  return Array.isArray(blocked) ? (blocked as string[]) : [];
};

/**
 * A message the decision let through is rendered in its step, with what the step has read (the run, its recipient,
 * tenant and data). The inbox needs no provider: the message is recorded as delivered (or as a render failure) by the
 * insert itself, with its feed event in the same transaction; no delivery job, no second read of the run. A provider's
 * message is recorded with its content and template, and its delivery job sends what is stored: the job reads the
 * message, not the run, its recipient or the template again (docs/engine.md, "Deliveries"); a render failure is
 * recorded by the insert and queues nothing.
 */
async function renderInline(
  db: Db,
  render: StepRenderer,
  memo: RenderMemo,
  run: LockedRun,
  recipient: RunRecipient,
  namespaces: RunNamespaces,
  message: NewMessage,
  now: number,
): Promise<NewMessage> {
  if (message.status !== 'to_be_triggered') return message;
  let rendered: RenderOutcome;
  try {
    rendered = await render(
      renderRequestOf(run, recipient, namespaces, message.template_slug ?? '', message.channel as DeliveryChannel),
      db,
      memo,
    );
  } catch (error) {
    rendered = { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
  if (!rendered.ok) return { ...message, delivered: renderFailed(rendered) };
  if (message.channel === 'inbox') return { ...message, delivered: storedInInbox(rendered, now) };
  return { ...message, rendered: { content: rendered.content, template: rendered.template } };
}

const recorded = (m: NewMessage): RecordedMessage => ({
  id: m.id,
  channel: m.channel,
  status: m.delivered?.status ?? m.status,
});

/**
 * Inserts messages (a step run again inserts nothing), queues the ones a provider delivers (a job per channel and
 * DELIVERY_JOB_MESSAGES of them), announces the stored ones.
 */
async function recordMessages(
  trx: Trx,
  queue: Queue,
  workspaceId: number,
  messages: NewMessage[],
  at: Date,
): Promise<RecordedMessage[]> {
  const inserted = await insertMessages(trx, workspaceId, messages);
  // The templates the stored messages were rendered from were used now (last_triggered_at).
  const insertedIds = new Set(inserted.map((m) => m.id));
  const used = new Set(
    messages.flatMap((m) =>
      insertedIds.has(m.id) && m.delivered?.status === 'delivered' && typeof m.delivered.template?.slug === 'string'
        ? [m.delivered.template.slug]
        : [],
    ),
  );
  for (const slug of used) await markTemplateTriggered(trx, workspaceId, slug, at);
  const toDeliver = inserted.filter((m) => m.status === 'to_be_triggered');
  for (const channel of new Set(toDeliver.map((m) => m.channel)))
    await queue.sendMany(
      trx,
      deliveryQueue(channel),
      deliveryJobs(toDeliver.filter((m) => m.channel === channel).map((m) => m.id)),
    );
  await statusesChanged(
    trx,
    inserted.map((m) => ({ ...m, workspace_id: workspaceId })),
  );
  return inserted.map((m) => ({ id: m.id, channel: m.channel, status: m.status }));
}

interface ScopeDeps {
  queue: Queue;
  render: StepRenderer;
  now: () => number;
}

/** One run: every read and write as it comes. */
export function singleRunScope(trx: Trx, deps: ScopeDeps): RunScope {
  const renders: RenderMemo = new Map();
  return {
    lock: (runId) => lockRun(trx, runId),
    recipient: (run) => loadRecipientOne(trx, run),
    namespaces: (run, recipient) => loadNamespacesOne(trx, run, recipient),
    async facts(run, recipient, namespaces) {
      const live = await liveCategories(trx, run.workspace_id, renders);
      const vendors = await findActiveVendors(trx, run.workspace_id);
      const preferences =
        recipient.userId !== null
          ? preferenceStateOf(
              (await findPreferenceRowsOfUsers(trx, [recipient.userId], run.tenant_id)).get(recipient.userId)!,
              await findTenantOverlay(trx, run.workspace_id, run.tenant_id),
            )
          : { choices: new Map(), restricted: new Set<string>() };
      return { roots: live.root_categories, preferences, blockedChannels: blockedOf(namespaces), vendors };
    },
    save: (runId, progress) => saveRunProgress(trx, runId, progress),
    async writeMessages(run, recipient, namespaces, messages) {
      const now = deps.now();
      const ready = [];
      for (const m of messages)
        ready.push(await renderInline(trx, deps.render, renders, run, recipient, namespaces, m, now));
      return recordMessages(trx, deps.queue, run.workspace_id, ready, new Date(now));
    },
    flush: async () => {},
  };
}

const memo = <T>(cache: Map<string, Promise<T>>, key: string, load: () => Promise<T>) => {
  let value = cache.get(key);
  if (!value) cache.set(key, (value = load()));
  return value;
};

/**
 * Many runs in one transaction. Locks them all up front (id order; runs it inserted itself need no lock), then loads what their steps
 * read a set at a time: users (recipients and actors) and tenants at once, live categories, vendors
 * and preferences the first time a delivery step needs them.
 */
export async function batchRunScope(
  trx: Trx,
  deps: ScopeDeps,
  runIds: string[],
  /** Runs this transaction inserted: nobody else sees them before its commit, so they are neither locked nor read again. */
  known?: LockedRun[],
): Promise<RunScope> {
  const runs = new Map((known ?? (await lockRuns(trx, runIds))).map((run) => [run.id, run]));
  const world = await loadRunsWorld(trx, runs.values());
  const vendors = new Map<string, ReturnType<typeof findActiveVendors>>();
  const overlays = new Map<string, ReturnType<typeof findTenantOverlay>>();
  const preferenceRows = new Map<string, ReturnType<typeof findPreferenceRowsOfUsers>>();
  const progress = new Map<string, RunProgress & { id: string }>();
  const pending = new Map<number, NewMessage[]>();
  // The batch's renders read each live template pointer once.
  const renders: RenderMemo = new Map();
  const userOf = world.userOf;

  return {
    lock: async (runId) => runs.get(runId) ?? lockRun(trx, runId),
    recipient: (run) => world.recipient(run),
    namespaces: async (run, recipient) => world.namespaces(run, recipient),
    async facts(run, recipient, namespaces) {
      const ws = String(run.workspace_id);
      const tenantKey = `${ws}\u0000${run.tenant_id}`;
      const categories = await liveCategories(trx, run.workspace_id, renders);
      const active = await memo(vendors, ws, () => findActiveVendors(trx, run.workspace_id));
      let preferences: DeliveryFacts['preferences'] = { choices: new Map(), restricted: new Set<string>() };
      if (recipient.userId !== null) {
        // Every user of this workspace and tenant in the batch, in one pass.
        const rows = await memo(preferenceRows, tenantKey, () => {
          const ids = [...runs.values()]
            .filter((r) => r.workspace_id === run.workspace_id && r.tenant_id === run.tenant_id)
            .map((r) => userOf(r.workspace_id, r.distinct_id)?.id)
            .filter((id): id is number => id !== undefined);
          return findPreferenceRowsOfUsers(trx, [...new Set([...ids, recipient.userId!])], run.tenant_id);
        });
        const mine =
          rows.get(recipient.userId) ??
          (await findPreferenceRowsOfUsers(trx, [recipient.userId], run.tenant_id)).get(recipient.userId)!;
        const overlay = await memo(overlays, tenantKey, () => findTenantOverlay(trx, run.workspace_id, run.tenant_id));
        preferences = preferenceStateOf(mine, overlay);
      }
      return {
        roots: categories.root_categories,
        preferences,
        blockedChannels: blockedOf(namespaces),
        vendors: active,
      };
    },
    async save(runId, p) {
      progress.set(runId, { ...p, id: runId });
    },
    async writeMessages(run, recipient, namespaces, messages) {
      const now = deps.now();
      const list = pending.get(run.workspace_id) ?? [];
      const ready = [];
      for (const m of messages)
        ready.push(await renderInline(trx, deps.render, renders, run, recipient, namespaces, m, now));
      list.push(...ready);
      pending.set(run.workspace_id, list);
      // Written when the batch ends; the run is locked, so these are the rows its step records.
      return ready.map(recorded);
    },
    async flush() {
      const at = new Date(deps.now());
      for (const [workspaceId, messages] of pending) await recordMessages(trx, deps.queue, workspaceId, messages, at);
      await saveRunsProgress(trx, [...progress.values()]);
    },
  };
}
