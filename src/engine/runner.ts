import type { Db, Trx } from '../db/database.js';
import { conditionsHold } from '../domain/expressions.js';
import { nextPosition, nodeAt, nodeRefs, settle, type Position } from '../domain/workflow-tree.js';
import { loadPreferenceState } from '../services/user-preferences.js';
import { findLivePreferenceCategories } from '../repositories/preference-categories.js';
import { lockRun, saveRunProgress, type LockedRun } from '../repositories/runs.js';
import { findActiveVendors } from '../repositories/vendors.js';
import { jobId } from './job-ids.js';
import { NODE_HANDLERS } from './nodes/index.js';
import type { DeliveryFacts, RunContext } from './nodes/types.js';
import { QUEUES, type Queue } from './queue.js';
import { handOverGathering } from './gathering.js';
import { applyRateLimit } from './ratelimit.js';
import { loadNamespaces, loadRecipient, runTree } from './run-context.js';

/**
 * Moves one run through its tree (docs/spec/engine.md §3). Each step runs in one transaction with the
 * run row locked: the nodes up to the next wait are done together with the new position, so a step
 * that is retried starts where the last committed one stopped, and records nothing twice (messages
 * are unique per run, step and channel; follow-up jobs have derived ids).
 */

export interface RunnerDeps {
  db: Db;
  queue: Queue;
  now: () => number;
  httpTimeoutMs: number;
}

/** A run job: `due` (ms) is the resume time a wait's job was scheduled for; other jobs have none. */
export interface RunJob {
  runId: string;
  due?: number;
}

/** The job being handled: its id, and the resume time it was scheduled for. */
export interface HandledJob {
  id: string;
  due?: number;
}

const RUNNABLE = new Set(['running', 'waiting']);
/** How early a resume job may be and still be taken as due: worker clocks differ by a little. */
const EARLY_TOLERANCE_MS = 1000;
const samePosition = (a: Position, b: Position) => a.length === b.length && a.every((v, i) => v === b[i]);

type StepOutcome = null | { perform: () => Promise<Record<string, unknown>>; position: Position };

/**
 * A resume job that arrives before its run is due. The job scheduled for this wait (its `due` is the
 * run's resume_at; a job without `due` may be one) is scheduled again for the due time, never dropped:
 * the worker's clock may be behind the one that scheduled it. Its successor's id derives from its own,
 * so a job handled twice schedules one successor. A job scheduled for another wait (a duplicate of an
 * earlier one) leaves this wait to its own job.
 */
async function rescheduleEarly(deps: RunnerDeps, trx: Trx, run: LockedRun, job: HandledJob | undefined) {
  const resumeAt = run.resume_at!;
  if (job?.due !== undefined && job.due !== resumeAt.getTime()) return;
  await deps.queue.send(trx, QUEUES.run, { runId: run.id, due: resumeAt.getTime() } satisfies RunJob, {
    id: jobId('run-early', run.id, run.position.join('.'), resumeAt.getTime(), job?.id ?? ''),
    startAfter: resumeAt,
  });
}

async function step(deps: RunnerDeps, trx: Trx, runId: string, job?: HandledJob): Promise<StepOutcome> {
  const run = await lockRun(trx, runId);
  if (!run) return null;
  if (run.status === 'cancelled' || run.execution_status === 'cancelled') {
    await handOverGathering(deps, trx, run);
    if (RUNNABLE.has(run.status)) await saveRunProgress(trx, runId, { status: 'cancelled', position: run.position });
    return null;
  }
  if (!RUNNABLE.has(run.status)) return null;
  const now = deps.now();
  if (run.status === 'waiting' && run.resume_at && run.resume_at.getTime() > now + EARLY_TOLERANCE_MS) {
    await rescheduleEarly(deps, trx, run, job);
    return null;
  }
  const tree = await runTree(trx, run);
  const refs = nodeRefs(tree);
  const recipient = await loadRecipient(trx, run);
  const namespaces = await loadNamespaces(trx, run, recipient);
  if (samePosition(run.position, [0]) && run.status === 'running' && tree && typeof tree === 'object') {
    if (!conditionsHold((tree as { conditions?: unknown }).conditions, namespaces)) {
      await saveRunProgress(trx, runId, { status: 'skipped', position: run.position });
      return null;
    }
    await applyRateLimit(trx, run, tree, now);
  }
  let facts: DeliveryFacts | undefined;
  const deliveryFacts = async () => {
    if (facts) return facts;
    const [live, vendors] = [
      await findLivePreferenceCategories(trx, run.workspace_id),
      await findActiveVendors(trx, run.workspace_id),
    ];
    const preferences =
      recipient.userId !== null
        ? await loadPreferenceState(trx, recipient.userId, run.tenant_id)
        : { choices: new Map(), restricted: new Set<string>() };
    const blocked = namespaces.tenantSettings.blocked_channels;
    facts = {
      roots: live.root_categories,
      preferences,
      blockedChannels: Array.isArray(blocked) ? (blocked as string[]) : [],
      vendors,
    };
    return facts;
  };

  let position = settle(tree, run.position);
  while (position !== null) {
    const node = nodeAt(tree, position)!;
    const handler = NODE_HANDLERS[node.node_type];
    if (!handler) {
      // Commit-time validation refuses such trees; a legacy tree could still hold one.
      await saveRunProgress(trx, runId, { status: 'failed', position });
      return null;
    }
    const context: RunContext = {
      trx,
      queue: deps.queue,
      run,
      node,
      nodeRef: refs.get(position.join('.'))!,
      position,
      tree,
      namespaces,
      recipient,
      now,
      deliveryFacts,
      httpTimeoutMs: deps.httpTimeoutMs,
    };
    const result = await handler(context);
    if (result.kind === 'next') position = nextPosition(tree, position);
    else if (result.kind === 'jump') position = result.position;
    else if (result.kind === 'wait') {
      const next = result.again ? position : (nextPosition(tree, position) ?? [Number.MAX_SAFE_INTEGER]);
      await saveRunProgress(trx, runId, { status: 'waiting', position: next, resumeAt: result.until });
      await deps.queue.send(trx, QUEUES.run, { runId, due: result.until.getTime() } satisfies RunJob, {
        id: jobId('run', runId, next.join('.'), result.until.getTime()),
        startAfter: result.until,
      });
      return null;
    } else if (result.kind === 'stop') {
      await saveRunProgress(trx, runId, { status: result.status, position });
      return null;
    } else {
      await saveRunProgress(trx, runId, { status: 'running', position });
      return { perform: result.perform, position };
    }
  }
  await saveRunProgress(trx, runId, { status: 'completed', position: run.position });
  return null;
}

/** Stores an outside call's answer and moves past its node, unless another worker already did. */
async function storeCall(trx: Db, runId: string, position: Position, output: Record<string, unknown>) {
  const run = await lockRun(trx, runId);
  if (!run || run.status !== 'running' || !samePosition(run.position, position)) return false;
  const tree = await runTree(trx, run);
  const next = nextPosition(tree, position);
  await saveRunProgress(trx, runId, {
    status: 'running',
    position: next ?? [Number.MAX_SAFE_INTEGER],
    data: { ...(run.run_data as Record<string, unknown>), ...output },
  });
  return true;
}

export async function advanceRun(deps: RunnerDeps, runId: string, job?: HandledJob) {
  for (;;) {
    const outcome = await deps.db.transaction().execute((trx) => step(deps, trx, runId, job));
    if (!outcome) return;
    const output = await outcome.perform();
    const moved = await deps.db.transaction().execute((trx) => storeCall(trx, runId, outcome.position, output));
    if (!moved) return;
  }
}
