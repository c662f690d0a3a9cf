import type { Db, Trx } from '../db/database.js';
import { conditionsHold } from '../domain/expressions.js';
import { nextPosition, nodeAt, nodeRefs, settle, type Position } from '../domain/workflow-tree.js';
import { lockRun, saveRunProgress } from '../repositories/runs.js';
import { jobId } from './job-ids.js';
import { NODE_HANDLERS } from './nodes/index.js';
import type { DeliveryFacts, RunContext } from './nodes/types.js';
import { QUEUES, type Queue } from './queue.js';
import { applyRateLimit } from './ratelimit.js';
import { runTree } from './run-context.js';
import { batchRunScope, singleRunScope, type RunScope, type StepRenderer } from './run-scope.js';

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
  /** Renders inbox messages in the step (src/engine/run-scope.ts). */
  render: StepRenderer;
}

const RUNNABLE = new Set(['running', 'waiting']);
const samePosition = (a: Position, b: Position) => a.length === b.length && a.every((v, i) => v === b[i]);

type StepOutcome = null | { perform: () => Promise<Record<string, unknown>>; position: Position };

async function step(deps: RunnerDeps, trx: Trx, runId: string, scope: RunScope): Promise<StepOutcome> {
  const run = await scope.lock(runId);
  if (!run || !RUNNABLE.has(run.status)) return null;
  if (run.execution_status === 'cancelled') {
    await scope.save(runId, { status: 'cancelled', position: run.position });
    return null;
  }
  const now = deps.now();
  // A resume job that arrives early (a duplicate) leaves the wait to the job due at resume_at.
  if (run.status === 'waiting' && run.resume_at && run.resume_at.getTime() > now + 1000) return null;
  const tree = await runTree(trx, run);
  const refs = nodeRefs(tree);
  const recipient = await scope.recipient(run);
  const namespaces = await scope.namespaces(run, recipient);
  if (samePosition(run.position, [0]) && run.status === 'running' && tree && typeof tree === 'object') {
    if (!conditionsHold((tree as { conditions?: unknown }).conditions, namespaces)) {
      await scope.save(runId, { status: 'skipped', position: run.position });
      return null;
    }
    await applyRateLimit(trx, run, tree, now);
  }
  let facts: DeliveryFacts | undefined;
  const deliveryFacts = async () => (facts ??= await scope.facts(run, recipient, namespaces));

  let position = settle(tree, run.position);
  while (position !== null) {
    const node = nodeAt(tree, position)!;
    const handler = NODE_HANDLERS[node.node_type];
    if (!handler) {
      // Commit-time validation refuses such trees; a legacy tree could still hold one.
      await scope.save(runId, { status: 'failed', position });
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
      writeMessages: (messages) => scope.writeMessages(run, recipient, namespaces, messages),
      httpTimeoutMs: deps.httpTimeoutMs,
    };
    const result = await handler(context);
    if (result.kind === 'next') position = nextPosition(tree, position);
    else if (result.kind === 'jump') position = result.position;
    else if (result.kind === 'wait') {
      const next = result.again ? position : (nextPosition(tree, position) ?? [Number.MAX_SAFE_INTEGER]);
      await scope.save(runId, { status: 'waiting', position: next, resumeAt: result.until });
      await deps.queue.send(
        trx,
        QUEUES.run,
        { runId },
        { id: jobId('run', runId, next.join('.'), result.until.getTime()), startAfter: result.until },
      );
      return null;
    } else if (result.kind === 'stop') {
      await scope.save(runId, { status: result.status, position });
      return null;
    } else {
      await scope.save(runId, { status: 'running', position });
      return { perform: result.perform, position };
    }
  }
  await scope.save(runId, { status: 'completed', position: run.position });
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

/** After a step stopped at an outside call: the call, its answer stored, and the next steps, until the run waits or ends. */
async function continueAfter(deps: RunnerDeps, runId: string, outcome: StepOutcome) {
  while (outcome) {
    const output = await outcome.perform();
    const current = outcome;
    const moved = await deps.db.transaction().execute((trx) => storeCall(trx, runId, current.position, output));
    if (!moved) return;
    outcome = await deps.db.transaction().execute(async (trx) => {
      const scope = singleRunScope(trx, deps);
      const next = await step(deps, trx, runId, scope);
      await scope.flush();
      return next;
    });
  }
}

export async function advanceRun(deps: RunnerDeps, runId: string) {
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const scope = singleRunScope(trx, deps);
    const next = await step(deps, trx, runId, scope);
    await scope.flush();
    return next;
  });
  await continueAfter(deps, runId, outcome);
}

/**
 * Many runs' steps in one transaction (a fetched batch of run jobs): a fixed number of statements
 * for the batch's reads and writes, whatever its size (src/engine/run-scope.ts). Returns what is
 * left to do for each run after the commit: its outside call, if its step stopped at one.
 */
export async function stepRuns(deps: RunnerDeps, runIds: string[]) {
  const ids = [...new Set(runIds)].sort();
  const outcomes = await deps.db.transaction().execute(async (trx) => {
    const scope = await batchRunScope(trx, deps, ids);
    const results = new Map<string, StepOutcome>();
    for (const id of ids) results.set(id, await step(deps, trx, id, scope));
    await scope.flush();
    return results;
  });
  return (runId: string) => continueAfter(deps, runId, outcomes.get(runId) ?? null);
}
