import type { Trx } from '../db/database.js';
import { inboxUpdates } from '../domain/inbox-events.js';
import { applyMessageAction, type MessageState } from '../domain/message-actions.js';
import { publishInboxEvents } from '../repositories/inbox-events.js';
import { lockMessages, saveMessageStates, type MessageRow } from '../repositories/messages.js';

/** Messages as the message routes read and change them. */

export interface MessageActionItem {
  message_id: string;
  action: string;
}

export interface MessageActionResult {
  message_id: string;
  status_code: 202 | 404 | 422;
  error: { type: string; message: string } | null;
}

const isoOf = (value: Date | null) => (value === null ? null : value.toISOString());

/** A stored message as the forward-only status rule sees it (domain/message-actions.ts). */
export const messageStateOf = (row: MessageRow): MessageState => ({
  status: row.status,
  is_read: row.is_read,
  is_archived: row.is_archived,
  seen_at: isoOf(row.seen_at),
  read_at: isoOf(row.read_at),
  clicked_at: isoOf(row.clicked_at),
  dismissed_at: isoOf(row.dismissed_at),
  archived_at: isoOf(row.archived_at),
});

/**
 * `PATCH /v1/bulk/message/`: each action applied in order to its message (status only moves
 * forward, domain/message-actions.ts), one result per item, the changed messages saved together,
 * and the browsers showing them told (src/base/feed-socket.ts).
 */
export async function applyMessageActions(
  trx: Trx,
  workspaceId: number,
  items: MessageActionItem[],
  now: string,
): Promise<MessageActionResult[]> {
  const rows = await lockMessages(trx, workspaceId, [...new Set(items.map((i) => i.message_id))]);
  const states = new Map(rows.map((row) => [row.id, messageStateOf(row)]));
  const changed = new Set<string>();
  const results = items.map((item): MessageActionResult => {
    const state = states.get(item.message_id);
    if (!state)
      return {
        message_id: item.message_id,
        status_code: 404,
        error: { type: 'not_found', message: 'message not found' },
      };
    const outcome = applyMessageAction(state, item.action, now);
    if (!outcome.ok)
      return {
        message_id: item.message_id,
        status_code: 422,
        error: { type: 'unprocessable', message: outcome.message },
      };
    states.set(item.message_id, outcome.state);
    changed.add(item.message_id);
    return { message_id: item.message_id, status_code: 202, error: null };
  });
  await saveMessageStates(
    trx,
    [...changed].map((id) => ({ id, ...states.get(id)! })),
  );
  await publishInboxEvents(trx, inboxUpdates(rows, changed, items));
  return results;
}
