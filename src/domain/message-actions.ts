/**
 * What an engagement action does to a message (docs/spec/engine.md §5): status only moves forward;
 * read/unread and archived/unarchived toggle. Pure: the caller reads and writes the rows.
 */

const RANK: Record<string, number> = {
  to_be_triggered: 0,
  triggered: 1,
  sent_by_vendor: 2,
  delivered: 3,
  seen: 4,
  read: 5,
  clicked: 6,
  dismissed: 7,
};
/** A message the decision refused or that never reached the recipient takes no engagement. */
const FINAL_FAILURES = new Set(['not_to_be_triggered', 'trigger_failed', 'delivery_failure']);

export interface MessageState {
  status: string;
  is_read: boolean;
  is_archived: boolean;
  seen_at: string | null;
  read_at: string | null;
  clicked_at: string | null;
  dismissed_at: string | null;
  archived_at: string | null;
}

export type ActionResult = { ok: true; state: MessageState } | { ok: false; message: string };

const forward = (state: MessageState, status: string) =>
  (RANK[status] ?? 0) > (RANK[state.status] ?? 0) ? status : state.status;

export function applyMessageAction(state: MessageState, action: string, now: string): ActionResult {
  if (FINAL_FAILURES.has(state.status))
    return { ok: false, message: `a message with status '${state.status}' cannot be marked ${action}` };
  const next = { ...state };
  switch (action) {
    case 'seen':
      next.status = forward(state, 'seen');
      next.seen_at ??= now;
      break;
    case 'read':
      next.status = forward(state, 'read');
      next.seen_at ??= now;
      next.read_at = now;
      next.is_read = true;
      break;
    case 'unread':
      next.is_read = false;
      next.read_at = null;
      break;
    case 'clicked':
      next.status = forward(state, 'clicked');
      next.seen_at ??= now;
      next.clicked_at ??= now;
      break;
    case 'dismissed':
      next.status = forward(state, 'dismissed');
      next.dismissed_at ??= now;
      break;
    case 'archived':
      next.is_archived = true;
      next.archived_at ??= now;
      break;
    case 'unarchived':
      next.is_archived = false;
      next.archived_at = null;
      break;
    default:
      return { ok: false, message: `unknown action '${action}'` };
  }
  return { ok: true, state: next };
}

/** The statuses a message moves forward from when it becomes `status` (set-based updates use it). */
export const statusesBefore = (status: string) =>
  Object.keys(RANK).filter((known) => RANK[known]! < (RANK[status] ?? 0));
