import { gatheringOf, traceRunStatus, type RunStep } from '../domain/run-steps.js';
import type { ExecutionRow } from '../repositories/run-traces.js';
import { iso } from '../schemas/common.js';

/** Run traces as the API shows them (docs/runs.md). */

type TracedRun = {
  id: string;
  recipient_type: string;
  distinct_id: string | null;
  object_type: string | null;
  object_id: string | null;
  status: string;
  steps: unknown;
};

const actorOf = (actor: unknown) => {
  const distinctId = (actor as { distinctId?: unknown } | null)?.distinctId;
  return typeof distinctId === 'string' ? { distinct_id: distinctId } : null;
};

export function presentExecution(row: ExecutionRow) {
  return {
    execution_id: row.id,
    workflow: { slug: row.workflow_slug, version_id: String(row.version_no) },
    status: row.status,
    created_at: iso(row.created_at),
    idempotency_key: row.idempotency_key,
    tenant_id: row.tenant_id,
    actor: actorOf(row.actor),
    recipients_count: Math.max(Number(row.runs_count), Array.isArray(row.recipients) ? row.recipients.length : 0),
  };
}

/**
 * One run: its steps as recorded; a run cancelled while it waited (the cancel marks it without a
 * step) ends with a `cancelled` step at the execution's cancel time. An absorbed run names the run
 * that now carries its gathering.
 */
export function presentRunTrace(run: TracedRun, cancelledAt: Date | null, waiters: Map<string, string | null>) {
  const steps = (Array.isArray(run.steps) ? run.steps : []) as RunStep[];
  const status = traceRunStatus(run.status);
  const shown = [...steps];
  if (status === 'cancelled' && shown.at(-1)?.outcome !== 'cancelled')
    shown.push({
      node_ref: null,
      node_type: 'run',
      outcome: 'cancelled',
      at: iso(cancelledAt ?? new Date()),
      detail: {},
    });
  const gathering = gatheringOf(run);
  const recorded = steps.at(-1)?.detail?.absorbed_into;
  return {
    run_id: run.id,
    recipient:
      run.recipient_type === 'object'
        ? { object_type: run.object_type ?? '', id: run.object_id ?? '' }
        : { distinct_id: run.distinct_id ?? '' },
    status,
    ...(status === 'absorbed'
      ? {
          absorbed_into:
            (gathering !== undefined ? waiters.get(gathering) : undefined) ??
            (typeof recorded === 'string' ? recorded : null),
        }
      : {}),
    steps: shown,
  };
}

/** One execution's trace: the execution and each of its runs (services/run-traces.ts `getExecutionTrace`). */
export function presentExecutionTrace(trace: {
  execution: ExecutionRow;
  runs: TracedRun[];
  waiters: Map<string, string | null>;
}) {
  return {
    ...presentExecution(trace.execution),
    runs: trace.runs.map((run) => presentRunTrace(run, trace.execution.cancelled_at, trace.waiters)),
  };
}

/** A workflow test run (engine/test-run.ts): its run's trace, each delivering step with what its messages would do. */
export function presentTestRun<Delivery>(result: {
  mode: string;
  workflow: { slug: string; version_id: string | null };
  recipient: { distinct_id: string };
  tenant_id: string;
  trace: { execution: ExecutionRow; runs: TracedRun[]; waiters: Map<string, string | null> };
  deliveries: ReadonlyMap<number, Delivery[]>;
  jobs_not_queued: number;
}) {
  const { trace, deliveries, ...shown } = result;
  const run = presentRunTrace(trace.runs[0]!, trace.execution.cancelled_at, trace.waiters);
  return {
    ...shown,
    status: run.status,
    steps: run.steps.map((step, index) => {
      const made = deliveries.get(index);
      return made ? { ...step, deliveries: made } : step;
    }),
  };
}
