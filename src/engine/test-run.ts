import type { OutboundPolicy } from '../channels/outbound.js';
import type { DeliveryChannel } from '../channels/provider.js';
import { renderTemplate } from '../channels/rendering.js';
import type { Db, Trx } from '../db/database.js';
import { applyUpsert } from '../domain/entity-operations.js';
import { readRecipient, RecordError } from '../domain/trigger-records.js';
import { nextPosition, nodeAt, nodeRefs } from '../domain/workflow-tree.js';
import { badRequest, notFound, notFoundErrors } from '../errors.js';
import { newUlid } from '../ids.js';
import { findTenantSettings, insertExecutions } from '../repositories/executions.js';
import { findMessageById } from '../repositories/messages.js';
import { lockRun, insertRuns, saveRunProgress } from '../repositories/runs.js';
import { findUserByDistinctId } from '../repositories/users.js';
import { findActiveVendors } from '../repositories/vendors.js';
import { findLiveWorkflowVersion } from '../repositories/workflow-versions.js';
import { findWorkflow } from '../repositories/workflows.js';
import { getExecutionTrace } from '../services/run-traces.js';
import { changeUsers } from '../services/users.js';
import type { Queue } from './queue.js';
import { userRun } from './recipients.js';
import { loadNamespaces, loadRecipient, renderRequestOf, runTree } from './run-context.js';
import { singleRunScope } from './run-scope.js';
import { step, type RunnerDeps } from './runner.js';

/**
 * The workflow test run (docs/runs.md, docs/spec/product.md §3): one recipient walked through the draft
 * or live tree by the engine's own step (`step` with the single-run scope: the real conditions,
 * ratelimit, delivery decision and vendor choice), then each delivery rendered by the delivery's
 * renderer, all in one transaction that is rolled back. Jobs the walk would queue are kept in memory,
 * never sent; a wait is reported and the walk goes on at its resume time; outside calls (HTTP nodes)
 * are not made, and reported as skipped.
 */

export interface TestRunInput {
  mode: 'draft' | 'live';
  recipient: unknown;
  data: Record<string, unknown>;
  actor?: unknown;
  tenantId?: string;
}

export interface TestRunDeps {
  db: Db;
  outbound: OutboundPolicy;
}

/** How many steps one test run takes at most: a loop back to a wait (`again`) ends there. */
const MAX_STEPS = 200;

class RolledBack extends Error {}

/** A queue that keeps what would be sent: nothing reaches the job tables, nobody is woken. */
function heldQueue(): { queue: Queue; held: { queue: string; data: unknown }[] } {
  const held: { queue: string; data: unknown }[] = [];
  const queue = {
    stopSignal: new AbortController().signal,
    async send(_db: Db, name: string, data: unknown) {
      held.push({ queue: name, data });
    },
    async sendMany(_db: Db, name: string, jobs: { data: unknown }[]) {
      for (const job of jobs) held.push({ queue: name, data: job.data });
    },
    async sendManyWith(_db: Db, name: string, jobs: { data: unknown }[]) {
      for (const job of jobs) held.push({ queue: name, data: job.data });
    },
    async notifyIn() {},
    wake() {},
  };
  return { queue: queue as unknown as Queue, held };
}

function recipientOf(value: unknown, at: string) {
  try {
    const recipient = readRecipient(value, at);
    if (recipient.kind !== 'user') throw badRequest(`${at} must be a distinct_id or a user {distinct_id, …}`);
    return recipient;
  } catch (error) {
    if (error instanceof RecordError) throw badRequest(error.message);
    throw error;
  }
}

/** The tree the walk takes: the draft (the workflow row) or the live version. */
async function treeOf(db: Db, workspaceId: number, slug: string, mode: 'draft' | 'live') {
  const workflow = await findWorkflow(db, workspaceId, slug);
  if (!workflow) throw notFoundErrors.workflow(slug);
  if (mode === 'draft')
    return { workflow, tree: workflow.tree, category: workflow.category, versionNo: workflow.live_version_no ?? 0 };
  const live = await findLiveWorkflowVersion(db, workflow);
  if (!live) throw notFoundErrors.liveWorkflow(slug);
  return { workflow, tree: live.tree, category: live.category, versionNo: live.version_no };
}

/** What each delivery of a `delivered_messages` step would do: the decision, the vendor, the content. */
async function deliveriesOf(trx: Trx, workspaceId: number, runId: string, messageIds: string[]) {
  const run = (await lockRun(trx, runId))!;
  const recipient = await loadRecipient(trx, run);
  const namespaces = await loadNamespaces(trx, run, recipient);
  const vendors = await findActiveVendors(trx, workspaceId);
  const deliveries = [];
  for (const id of messageIds) {
    const message = await findMessageById(trx, id);
    if (!message) continue;
    const base = { channel: message.channel, channel_identity: message.channel_identity ?? null };
    if (message.status === 'not_to_be_triggered') {
      deliveries.push({
        ...base,
        decision: { send: false, reason: message.reason },
        vendor: null,
        content: null,
        template: null,
        error: null,
      });
      continue;
    }
    const vendor = message.channel === 'inbox' ? undefined : vendors.get(message.channel);
    // The inbox is rendered in the step itself; the other channels by the delivery's renderer.
    const rendered =
      message.channel === 'inbox'
        ? message.content === null
          ? { ok: false as const, reason: (message.error as { message?: string } | null)?.message ?? 'not rendered' }
          : { ok: true as const, content: message.content, template: message.template }
        : await renderTemplate(
            trx,
            renderRequestOf(
              run,
              recipient,
              namespaces,
              (message.template as { slug?: string } | null)?.slug ?? '',
              message.channel as DeliveryChannel,
            ),
          ).catch((error: unknown) => ({
            ok: false as const,
            reason: error instanceof Error ? error.message : String(error),
          }));
    deliveries.push({
      ...base,
      decision: rendered.ok ? { send: true, reason: null } : { send: false, reason: 'render_failed' },
      vendor: vendor ? { id: vendor.id, provider: vendor.provider, nickname: vendor.nickname } : null,
      content: rendered.ok ? rendered.content : null,
      template: rendered.ok ? (rendered.template ?? null) : null,
      error: rendered.ok ? null : rendered.reason,
    });
  }
  return deliveries;
}

async function walk(deps: TestRunDeps, trx: Trx, workspaceId: number, slug: string, input: TestRunInput) {
  const { workflow, tree, category, versionNo } = await treeOf(trx, workspaceId, slug, input.mode);
  const recipient = recipientOf(input.recipient, 'recipient');
  const actor = input.actor === undefined || input.actor === null ? null : recipientOf(input.actor, 'actor');
  const tenantId = input.tenantId ?? 'default';
  if ((await findTenantSettings(trx, workspaceId, [tenantId])).length === 0)
    throw notFound(`tenant '${tenantId}' not found`);
  const inline = recipient.inline && Object.keys(recipient.inline).length > 0;
  if (!inline && !(await findUserByDistinctId(trx, workspaceId, recipient.distinctId)))
    throw notFoundErrors.user(recipient.distinctId);
  // An inline user is stored as a trigger stores it (in this transaction, rolled back with it).
  const stored = [recipient, ...(actor ? [actor] : [])].flatMap((r) =>
    r.inline && !r.transient && Object.keys(r.inline).length > 0
      ? [{ distinctId: r.distinctId, apply: (s: Parameters<typeof applyUpsert>[0]) => applyUpsert(s, r.inline!) }]
      : [],
  );
  await changeUsers(trx, workspaceId, stored, { create: true });

  const executionId = newUlid();
  await insertExecutions(trx, workspaceId, [
    {
      id: executionId,
      workflow_id: workflow.id,
      // The walked tree rides on the execution, as a dynamic workflow's does: the draft has no version.
      tree,
      workflow_slug: slug,
      version_no: versionNo,
      category: category ?? '',
      data: input.data,
      actor,
      tenant_id: tenantId,
      recipients: [recipient],
      idempotency_key: null,
      cancellation_key: null,
      source: 'trigger',
    },
  ]);
  const [run] = await insertRuns(trx, workspaceId, executionId, [userRun(recipient, null)]);
  const runId = run!.id;

  const { queue, held } = heldQueue();
  let clock = Date.now();
  const runnerDeps: RunnerDeps = {
    db: trx,
    queue,
    now: () => clock,
    // No outside call is made (see below): the HTTP nodes' timeout never applies.
    httpTimeoutMs: 10_000,
    outbound: deps.outbound,
    log: { error: () => {} },
    render: (request, handle, memo) => renderTemplate(handle, request, memo),
  };
  for (let i = 0; i < MAX_STEPS; i += 1) {
    const outcome = await step(runnerDeps, trx, runId, singleRunScope(trx, runnerDeps));
    if (outcome) {
      // An outside call is not made: the walk goes on past it with nothing added to the data.
      const walked = await runTree(trx, (await lockRun(trx, runId))!);
      const next = nextPosition(walked, outcome.position);
      await saveRunProgress(trx, runId, {
        status: 'running',
        position: next ?? [Number.MAX_SAFE_INTEGER],
        steps: [
          {
            node_ref: nodeRefs(walked).get(outcome.position.join('.')) ?? null,
            node_type: nodeAt(walked, outcome.position)?.node_type ?? 'unknown',
            outcome: 'skipped',
            at: new Date(clock).toISOString(),
            detail: { reason: 'a test run makes no outside calls' },
          },
        ],
      });
      continue;
    }
    const after = (await lockRun(trx, runId))!;
    if (after.status !== 'waiting' || !after.resume_at) break;
    // A wait is reported, not waited: the walk resumes at the time the run would.
    clock = Math.max(clock, after.resume_at.getTime());
  }

  const trace = await getExecutionTrace(trx, workspaceId, executionId);
  const traced = trace.runs[0]!;
  // Each step that delivered, by its index in the run's steps: what each of its messages would have done.
  const deliveries = new Map<number, Awaited<ReturnType<typeof deliveriesOf>>>();
  for (const [index, s] of traced.steps.entries()) {
    const ids = s.outcome === 'delivered_messages' ? ((s.detail as { message_ids?: string[] }).message_ids ?? []) : [];
    if (ids.length > 0) deliveries.set(index, await deliveriesOf(trx, workspaceId, runId, ids));
  }
  return {
    mode: input.mode,
    workflow: { slug, version_id: input.mode === 'live' ? String(versionNo) : null },
    recipient: { distinct_id: recipient.distinctId },
    tenant_id: tenantId,
    trace: { ...trace, runs: [traced] },
    deliveries,
    jobs_not_queued: held.length,
  };
}

/** Walks the workflow for one recipient and rolls everything back; answers what the run would have done. */
export async function testRunWorkflow(deps: TestRunDeps, workspaceId: number, slug: string, input: TestRunInput) {
  let result: Awaited<ReturnType<typeof walk>> | undefined;
  try {
    await deps.db.transaction().execute(async (trx) => {
      result = await walk(deps, trx, workspaceId, slug, input);
      throw new RolledBack();
    });
  } catch (error) {
    if (!(error instanceof RolledBack)) throw error;
  }
  return result!;
}
