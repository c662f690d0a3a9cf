/**
 * What a run trace records of each step (docs/runs.md, docs/spec/product.md §1): the node, what
 * happened there and when. Recorded by the runner with the run's progress, in the same statement.
 */

export const STEP_OUTCOMES = [
  'done',
  'skipped',
  'waiting_until',
  'batched',
  'digested',
  'branch_taken',
  'rate_limited',
  'cancelled',
  'failed',
  'delivered_messages',
] as const;
export type StepOutcomeName = (typeof STEP_OUTCOMES)[number];

/** How a node handler describes its step, when `done` (or the runner's reading of its result) is not enough. */
export interface StepNote {
  outcome: StepOutcomeName;
  detail?: Record<string, unknown>;
}

export interface RunStep {
  node_ref: string | null;
  node_type: string;
  outcome: StepOutcomeName;
  /** ISO 8601, the engine's clock. */
  at: string;
  detail: Record<string, unknown>;
}

/** The run statuses of a trace: `batched` (the engine's word) is `absorbed`; `skipped` and `rate_limited` runs completed. */
export function traceRunStatus(
  status: string,
): 'running' | 'waiting' | 'completed' | 'cancelled' | 'failed' | 'absorbed' {
  if (status === 'running' || status === 'waiting' || status === 'cancelled' || status === 'failed') return status;
  if (status === 'batched') return 'absorbed';
  return 'completed';
}

/**
 * An execution's status from its own and its runs': cancelled wins; no run yet is `accepted`; any run
 * still running is `running`, else any waiting is `waiting`; all finished: `failed` when one failed.
 */
export function traceExecutionStatus(executionStatus: string, runStatuses: Iterable<string>) {
  if (executionStatus === 'cancelled') return 'cancelled' as const;
  let any = false;
  let waiting = false;
  let failed = false;
  for (const status of runStatuses) {
    any = true;
    if (status === 'running') return 'running' as const;
    if (status === 'waiting') waiting = true;
    if (status === 'failed') failed = true;
  }
  if (!any) return 'accepted' as const;
  if (waiting) return 'waiting' as const;
  return failed ? ('failed' as const) : ('completed' as const);
}

/** The gathering an absorbed run joined: the batch or digest its last step names. */
export function gatheringOf(run: { status: string; steps: unknown }): string | undefined {
  if (run.status !== 'batched' || !Array.isArray(run.steps)) return undefined;
  const last = run.steps.at(-1) as RunStep | undefined;
  const id = last?.detail?.batch_id ?? last?.detail?.digest_id;
  return typeof id === 'string' ? id : undefined;
}
