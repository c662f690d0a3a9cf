import { parseDuration } from './durations.js';
import type { TriggerRecord } from './trigger-records.js';
import { RecordError } from './trigger-records.js';

/**
 * A broadcast request (`POST /{workspace_key}/broadcast/`, docs/spec/engine.md §1) as a trigger of
 * its own tree: its template on its channels (or every channel the member has), for the live
 * members of its list. Pure: the route has checked the body's shape already.
 */

export interface BroadcastBody {
  list_id: string;
  template: string;
  notification_category: string;
  channels?: string[];
  data?: Record<string, unknown>;
  delay?: string | number;
  trigger_at?: string;
  tenant_id?: string;
  brand_id?: string;
  $idempotency_key?: string;
}

export interface BroadcastRecord extends TriggerRecord {
  listId: string;
  tree: { nodes: unknown[] };
  category: string;
  startAfter: Date | undefined;
}

/** Messages carry this as their workflow slug (ours: a broadcast names no workflow). */
export const BROADCAST_SLUG_PREFIX = 'broadcast:';
export const broadcastSlug = (listId: string) => `${BROADCAST_SLUG_PREFIX}${listId}`;
/** A workflow slug never holds a colon (WORKFLOW_SLUG_PATTERN), so the prefix tells a broadcast's messages apart. */
export const isBroadcastSlug = (slug: string) => slug.startsWith(BROADCAST_SLUG_PREFIX);

/** The furthest ahead a broadcast may be scheduled (ours). */
export const MAX_BROADCAST_WAIT_DAYS = 366;
const MAX_WAIT_MS = MAX_BROADCAST_WAIT_DAYS * 86_400_000;

/**
 * A `trigger_at` (a broadcast's, a legacy trigger's) as a date, undefined when not ahead of now.
 * Throws RecordError naming `field` when it is no date or further ahead than MAX_BROADCAST_WAIT_DAYS:
 * a date in year +275760 was once accepted and failed every attempt to wait for it (issue 25).
 */
export function boundedTriggerAt(value: string, now: number, field: string): Date | undefined {
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new RecordError(`${field} must be an ISO 8601 date-time`);
  if (at - now > MAX_WAIT_MS) throw new RecordError(`${field} must be at most ${MAX_BROADCAST_WAIT_DAYS} days ahead`);
  return at > now ? new Date(at) : undefined;
}

/** When the broadcast starts: `trigger_at` wins over `delay`; undefined is now. Throws RecordError naming the field. */
export function broadcastStart(body: Pick<BroadcastBody, 'delay' | 'trigger_at'>, now: number): Date | undefined {
  if (body.trigger_at !== undefined) return boundedTriggerAt(body.trigger_at, now, 'trigger_at');
  if (body.delay !== undefined) {
    const ms = parseDuration(body.delay);
    if (ms === undefined) throw new RecordError('delay must be a duration like 1d2h30m10s or a number of seconds');
    if (ms > MAX_WAIT_MS) throw new RecordError(`delay must be at most ${MAX_BROADCAST_WAIT_DAYS} days`);
    return ms > 0 ? new Date(now + ms) : undefined;
  }
  return undefined;
}

export function readBroadcast(body: BroadcastBody, now: number): BroadcastRecord {
  const channels = body.channels?.length ? [...new Set(body.channels)] : undefined;
  return {
    workflow: broadcastSlug(body.list_id),
    recipients: [],
    data: body.data ?? {},
    actor: null,
    tenantId: body.tenant_id ?? body.brand_id ?? 'default',
    idempotencyKey: body.$idempotency_key ?? null,
    cancellationKey: null,
    listId: body.list_id,
    tree: {
      nodes: [
        {
          name: 'broadcast',
          node_type: 'send_multi_channel',
          template: body.template,
          ...(channels ? { channels } : {}),
        },
      ],
    },
    category: body.notification_category,
    startAfter: broadcastStart(body, now),
  };
}
