import { isBroadcastSlug } from '../domain/broadcasts.js';
import type { MessageRow } from '../repositories/messages.js';
import { iso, isoOrNull } from '../schemas/common.js';

/** A message row as the API shows it (docs/spec/engine.md §5). */
export function presentMessage(row: MessageRow) {
  return {
    message_id: row.id,
    execution_id: row.run_id,
    parent_execution_id: row.execution_id,
    workflow: { slug: row.workflow_slug, version_id: String(row.version_no), node_ref: row.node_ref },
    recipient:
      row.recipient_type === 'object'
        ? { $type: 'object', object_type: row.object_type ?? '', id: row.object_id ?? '' }
        : { $type: 'user', distinct_id: row.distinct_id ?? '' },
    channel: row.channel,
    channel_identity: row.channel_identity ?? null,
    tenant_id: row.tenant_id,
    is_campaign: isBroadcastSlug(row.workflow_slug),
    category: row.category,
    idempotency_key: row.idempotency_key,
    status: row.status,
    reason: row.reason,
    vendor: row.vendor ?? null,
    template: row.template && typeof row.template.version_no === 'number' ? row.template : null,
    content: row.content ?? null,
    error: row.error ?? null,
    attempts: row.attempts.length,
    // The message's own attempt list, as stored: one representation, whatever an attempt records.
    delivery_attempts: row.attempts,
    is_read: row.is_read,
    is_archived: row.is_archived,
    created_at: iso(row.created_at),
    triggered_at: isoOrNull(row.triggered_at),
    sent_at: isoOrNull(row.sent_at),
    delivered_at: isoOrNull(row.delivered_at),
    seen_at: isoOrNull(row.seen_at),
    read_at: isoOrNull(row.read_at),
    clicked_at: isoOrNull(row.clicked_at),
    dismissed_at: isoOrNull(row.dismissed_at),
    archived_at: isoOrNull(row.archived_at),
  };
}
