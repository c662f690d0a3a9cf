import { AnswerTooLarge, DestinationRefused, type OutboundPolicy } from '../channels/outbound.js';
import type { Db, Trx } from '../db/database.js';
import { conditionsHold } from '../domain/expressions.js';
import type { RunStep, StepNote } from '../domain/run-steps.js';
import { nextPosition, nodeAt, nodeRefs, settle, type Position } from '../domain/workflow-tree.js';
import type { LockedRun } from '../repositories/runs.js';
import { jobId } from './job-ids.js';
import { eachAlone } from './job-handler.js';
import { NODE_HANDLERS } from './nodes/index.js';
import type { DeliveryFacts, NodeResult, RunContext } from './types.js';
import { QUEUES, type Queue } from './queue.js';
import { handOverGathering } from './gathering.js';
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
  /** Where the HTTP nodes may call (src/channels/outbound.ts). */
  outbound: OutboundPolicy;
  log: { error(object: object, message: string): void; debug?(object: object, message: string): void };
  /** Renders inbox messages in the step (src/engine/run-scope.ts). */
  render: StepRenderer;
}

/** A run job: `due` (ms) is the resume time a wait's job was scheduled for; other jobs have none. */
export interface RunJob {
  runId: string;
  due?: number;
}

/** How many runs one batched step takes: a fetch of run jobs, or one run-batch job's runs. */
export const RUN_BATCH_SIZE = 100;

/** A run-batch job: new runs of a fan-out page, stepped together (src/engine/recipients.ts). */
export interface RunBatchJob {
  runIds: string[];
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

/** What the trace records for a node's result when the node says nothing more (docs/runs.md). */
function noteOf(result: NodeResult): StepNote | undefined {
  if (result.step) return result.step;
  if (result.kind === 'wait') return { outcome: 'waiting_until', detail: { until: result.until.toISOString() } };
  if (result.kind === 'stop')
    return result.status === 'failed'
      ? { outcome: 'failed', detail: { error: result.error ?? 'the step failed' } }
      : { outcome: result.status === 'skipped' ? 'skipped' : 'done' };
  if (result.kind === 'call') return undefined;
  return { outcome: 'done' };
}

const stepAt = (nodeRef: string | null, nodeType: string, at: number, note: StepNote): RunStep => ({
  node_ref: nodeRef,
  node_type: nodeType,
  outcome: note.outcome,
  at: new Date(at).toISOString(),
  detail: note.detail ?? {},
});

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

/** One step of a run in the caller's transaction and scope (exported for the workflow test run, src/engine/test-run.ts). */
export async function step(
  deps: RunnerDeps,
  trx: Trx,
  runId: string,
  scope: RunScope,
  job?: HandledJob,
): Promise<StepOutcome> {
  const run = await scope.lock(runId);
  if (!run) return null;
  if (run.status === 'cancelled' || run.execution_status === 'cancelled') {
    await handOverGathering(deps, trx, run);
    if (RUNNABLE.has(run.status))
      await scope.save(runId, {
        status: 'cancelled',
        position: run.position,
        steps: [stepAt(null, 'run', deps.now(), { outcome: 'cancelled' })],
      });
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
  const recipient = await scope.recipient(run);
  const namespaces = await scope.namespaces(run, recipient);
  // The trace of this step, saved with the run's progress (docs/runs.md).
  const steps: RunStep[] = [];
  if (samePosition(run.position, [0]) && run.status === 'running' && tree && typeof tree === 'object') {
    if (!conditionsHold((tree as { conditions?: unknown }).conditions, namespaces)) {
      steps.push(stepAt(null, 'workflow', now, { outcome: 'skipped', detail: { reason: 'conditions' } }));
      await scope.save(runId, { status: 'skipped', position: run.position, steps });
      return null;
    }
    const limited = await applyRateLimit(trx, run, tree, now);
    if (limited) steps.push(stepAt(null, 'workflow', now, { outcome: 'rate_limited', detail: limited }));
  }
  let facts: DeliveryFacts | undefined;
  const deliveryFacts = async () => (facts ??= await scope.facts(run, recipient, namespaces));

  let position = settle(tree, run.position);
  while (position !== null) {
    const node = nodeAt(tree, position)!;
    const handler = NODE_HANDLERS[node.node_type];
    const nodeRef = refs.get(position.join('.'))!;
    if (!handler) {
      // Commit-time validation refuses such trees; a legacy tree could still hold one.
      const error = `node type '${node.node_type}' is not supported by this engine`;
      steps.push(stepAt(nodeRef, node.node_type, now, { outcome: 'failed', detail: { error } }));
      await scope.save(runId, { status: 'failed', position, steps });
      return null;
    }
    const context: RunContext = {
      trx,
      queue: deps.queue,
      run,
      node,
      nodeRef,
      position,
      tree,
      namespaces,
      recipient,
      now,
      deliveryFacts,
      writeMessages: (messages) => scope.writeMessages(run, recipient, namespaces, messages),
      httpTimeoutMs: deps.httpTimeoutMs,
      outbound: deps.outbound,
    };
    const result = await handler(context);
    const note = noteOf(result);
    if (note) steps.push(stepAt(nodeRef, node.node_type, now, note));
    if (result.kind === 'next') position = nextPosition(tree, position);
    else if (result.kind === 'jump') position = result.position;
    else if (result.kind === 'wait') {
      const next = result.again ? position : (nextPosition(tree, position) ?? [Number.MAX_SAFE_INTEGER]);
      await scope.save(runId, { status: 'waiting', position: next, resumeAt: result.until, steps });
      await deps.queue.send(trx, QUEUES.run, { runId, due: result.until.getTime() } satisfies RunJob, {
        id: jobId('run', runId, next.join('.'), result.until.getTime()),
        startAfter: result.until,
      });
      return null;
    } else if (result.kind === 'stop') {
      await scope.save(runId, { status: result.status, position, steps });
      return null;
    } else {
      await scope.save(runId, { status: 'running', position, steps });
      return { perform: result.perform, position };
    }
  }
  await scope.save(runId, { status: 'completed', position: run.position, steps });
  return null;
}

/** The trace step of the outside call at `position`. */
const callStep = (tree: unknown, position: Position, at: number, note: StepNote) =>
  stepAt(nodeRefs(tree).get(position.join('.')) ?? null, nodeAt(tree, position)?.node_type ?? 'unknown', at, note);

/** Stores an outside call's answer and moves past its node, unless another worker already did. */
async function storeCall(
  deps: RunnerDeps,
  trx: Trx,
  runId: string,
  position: Position,
  output: Record<string, unknown>,
) {
  const scope = singleRunScope(trx, deps);
  const run = await scope.lock(runId);
  if (!run || run.status !== 'running' || !samePosition(run.position, position)) return false;
  const tree = await runTree(trx, run);
  const next = nextPosition(tree, position);
  await scope.save(runId, {
    status: 'running',
    position: next ?? [Number.MAX_SAFE_INTEGER],
    data: { ...(run.run_data as Record<string, unknown>), ...output },
    steps: [callStep(tree, position, deps.now(), { outcome: 'done' })],
  });
  return true;
}

/** Ends the run at its outside call, failed, unless another worker already moved it on. */
async function failCall(deps: RunnerDeps, trx: Trx, runId: string, position: Position, error: string) {
  const scope = singleRunScope(trx, deps);
  const run = await scope.lock(runId);
  if (!run || run.status !== 'running' || !samePosition(run.position, position)) return;
  const tree = await runTree(trx, run);
  await scope.save(runId, {
    status: 'failed',
    position,
    steps: [callStep(tree, position, deps.now(), { outcome: 'failed', detail: { error } })],
  });
}

/**
 * Runs' steps (`ids` sorted) in the caller's transaction: one run with its own reads and writes, several with the
 * batch's; `known`, runs this transaction inserted (nobody else sees them: no lock to take, no row to read again).
 */
async function stepIn(
  deps: RunnerDeps,
  trx: Trx,
  ids: string[],
  jobOf: (runId: string) => HandledJob | undefined,
  known?: LockedRun[],
) {
  const scope = ids.length === 1 && !known ? singleRunScope(trx, deps) : await batchRunScope(trx, deps, ids, known);
  const results = new Map<string, StepOutcome>();
  for (const id of ids) results.set(id, await step(deps, trx, id, scope, jobOf(id)));
  await scope.flush();
  return results;
}

/** Runs' steps in a transaction of their own. */
const stepTogether = (deps: RunnerDeps, ids: string[], jobOf: (runId: string) => HandledJob | undefined) =>
  deps.db.transaction().execute((trx) => stepIn(deps, trx, ids, jobOf));

/** One run's step in its own transaction. */
const stepOne = async (deps: RunnerDeps, runId: string, job?: HandledJob) =>
  (await stepTogether(deps, [runId], () => job)).get(runId) ?? null;

/** After a step stopped at an outside call: the call, its answer stored, and the next steps, until the run waits or ends. */
async function continueAfter(deps: RunnerDeps, runId: string, outcome: StepOutcome, job?: HandledJob) {
  while (outcome) {
    const current = outcome;
    let output: Record<string, unknown>;
    try {
      output = await current.perform();
    } catch (error) {
      // A destination the outbound policy refuses stays refused, and so does an answer past its
      // limit: the run fails rather than being retried.
      if (!(error instanceof DestinationRefused) && !(error instanceof AnswerTooLarge)) throw error;
      deps.log.error({ err: error, run_id: runId }, 'outside call refused; the run fails');
      await deps.db.transaction().execute((trx) => failCall(deps, trx, runId, current.position, error.message));
      return;
    }
    const moved = await deps.db.transaction().execute((trx) => storeCall(deps, trx, runId, current.position, output));
    if (!moved) return;
    outcome = await stepOne(deps, runId, job);
  }
}

/** One run's step and what follows it: a run job of one (tests drive runs with it). */
export async function advanceRun(deps: RunnerDeps, runId: string, job?: HandledJob) {
  const rest = await stepRuns(deps, [{ runId, job: job ?? { id: runId } }]);
  await rest(runId);
}

/**
 * New runs' first steps, in the caller's transaction (the trigger jobs that made them), with the
 * batch's set-based reads and writes. Returns the runs whose step stopped at an outside call: those
 * need a run job, which makes the call after the commit (a retry of that job makes it again).
 */
export async function stepNewRuns(deps: RunnerDeps, trx: Trx, runs: LockedRun[]): Promise<string[]> {
  if (runs.length === 0) return [];
  const ids = runs.map((run) => run.id).sort();
  const outcomes = await stepIn(deps, trx, ids, () => undefined, runs);
  return [...outcomes].flatMap(([id, outcome]) => (outcome ? [id] : []));
}

/**
 * Runs' steps in one transaction (a fetched batch of run jobs; a single job is a batch of one): a
 * fixed number of statements for the batch's reads and writes, whatever its size
 * (src/engine/run-scope.ts). Returns what is left to do for each run after the commit: its outside
 * call, if its step stopped at one.
 */
export async function stepRuns(deps: RunnerDeps, jobs: { runId: string; job: HandledJob }[]) {
  const byRun = new Map(jobs.map(({ runId, job }) => [runId, job]));
  const ids = [...byRun.keys()].sort();
  const outcomes = await stepTogether(deps, ids, (runId) => byRun.get(runId));
  // A run fetched twice in one batch (a duplicate job) continues once.
  return (runId: string) => {
    const outcome = outcomes.get(runId) ?? null;
    outcomes.delete(runId);
    return continueAfter(deps, runId, outcome, byRun.get(runId));
  };
}

/**
 * A run-batch job (a fan-out page's new runs): their steps together, else one by one. A run that fails
 * on its own does not fail its batch-mates' job: it goes on as a run job of its own (retried, and
 * finally failed, as any run), and the batch job completes.
 */
export async function stepRunBatch(deps: RunnerDeps, batchJobId: string, runIds: string[]) {
  const handled = { id: batchJobId };
  let rest: (runId: string) => Promise<void>;
  try {
    rest = await stepRuns(
      deps,
      runIds.map((runId) => ({ runId, job: handled })),
    );
  } catch (error) {
    deps.log.debug?.({ err: error }, 'batched run step failed; stepping the runs one by one');
    rest = (runId) => advanceRun(deps, runId, handled);
  }
  await eachAlone(deps, runIds, rest, {
    queue: QUEUES.run,
    job: (runId) => ({
      data: { runId } satisfies RunJob,
      options: { id: jobId('run-alone', runId, batchJobId), startAfter: 1 },
    }),
    failed: (runId) => ({ queue: QUEUES.runBatch, job_id: batchJobId, run_id: runId }),
    message: 'run of a batch failed; it goes on as a run job of its own',
  });
}
