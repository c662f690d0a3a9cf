import { parseDuration } from '../domain/durations.js';
import { markRateLimited, takeRateSlot } from '../repositories/rate-limits.js';
import type { Trx } from '../db/database.js';
import type { LockedRun } from '../repositories/runs.js';

/**
 * The workflow's `ratelimit {count, sliding_window}` per recipient (docs/spec/engine.md §3): decided
 * once when the run starts. A throttled run still walks its tree; each delivery is recorded with
 * status `not_to_be_triggered`, reason `rate_limited` (the trigger answered 202 long before).
 * (ours) The ratelimit is read from the tree, beside the workflow's `conditions`.
 */
export async function applyRateLimit(
  trx: Trx,
  run: LockedRun,
  tree: unknown,
  now: number,
): Promise<{ count: number; sliding_window: unknown } | undefined> {
  if (run.rate_limited) return undefined;
  const limit = readRateLimit(tree);
  if (!limit) return undefined;
  const admitted = await takeRateSlot(
    trx,
    { workspaceId: run.workspace_id, workflowSlug: run.workflow_slug, recipientKey: run.recipient_key },
    run.id,
    limit.count,
    new Date(now - limit.windowMs),
    new Date(now),
  );
  if (admitted) return undefined;
  await markRateLimited(trx, run.id);
  run.rate_limited = true;
  // What the run's trace records (docs/runs.md).
  return {
    count: limit.count,
    sliding_window: (tree as { ratelimit: { sliding_window: unknown } }).ratelimit.sliding_window,
  };
}

export function readRateLimit(tree: unknown): { count: number; windowMs: number } | undefined {
  const raw = typeof tree === 'object' && tree !== null ? (tree as { ratelimit?: unknown }).ratelimit : undefined;
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { count, sliding_window } = raw as { count?: unknown; sliding_window?: unknown };
  const windowMs = parseDuration(sliding_window);
  if (!Number.isInteger(count) || (count as number) < 1 || windowMs === undefined || windowMs <= 0) return undefined;
  return { count: count as number, windowMs };
}
