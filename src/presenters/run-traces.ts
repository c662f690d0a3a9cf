import { traceRunStatus, type RunStep } from '../domain/run-steps.js';
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

/** The gathering an absorbed run joined: the batch or digest its last step names. */
export function gatheringOf(run: { status: string; steps: unknown }): string | undefined {
  if (run.status !== 'batched' || !Array.isArray(run.steps)) return undefined;
  const last = run.steps.at(-1) as RunStep | undefined;
  const id = last?.detail?.batch_id ?? last?.detail?.digest_id;
  return typeof id === 'string' ? id : undefined;
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
