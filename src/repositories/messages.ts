import { sql, type Selectable } from 'kysely';
import { PLANNED_EACH_TIME, type Db, type Trx } from '../db/database.js';
import type { MessagesTable } from '../db/engine-types.js';
import { BROADCAST_SLUG_PREFIX } from '../domain/broadcasts.js';
import type { DeliveryAttempt, MessageTemplate } from '../schemas/messages.js';
import { beyondWindow, cursorPage, windowOrder, withinWindow, type CursorWindow } from './cursor-page.js';

export type MessageRow = Selectable<MessagesTable>;

export interface NewMessage {
  id: string;
  run_id: string;
  execution_id: string;
  node_ref: string;
  workflow_slug: string;
  version_no: number;
  recipient_type: string;
  distinct_id: string | null;
  object_type: string | null;
  object_id: string | null;
  channel: string;
  channel_identity: unknown;
  tenant_id: string;
  category: string;
  idempotency_key: string | null;
  status: string;
  reason: string | null;
  vendor: { name: string; nickname: string | null } | null;
  template_slug: string | null;
  /** A message a provider delivers, rendered by its step: its content and template, stored with it for the delivery. */
  rendered?: { content: Record<string, unknown>; template: MessageTemplate };
  /**
   * A message settled as it is recorded (the inbox): its outcome, written by the same insert, in the shape a
   * delivery's outcome is saved in (`DeliveryUpdate`).
   */
  delivered?: DeliveryUpdate;
}

/**
 * Records a step's messages in one statement. The (run, step, channel) key makes a step that runs
 * again record nothing new; the messages inserted now are returned. The rows travel as one JSON
 * parameter: one statement text whatever the batch (prepared once per connection), not a bound
 * value per column and row, which Kysely built and node-postgres serialised one by one (about 10 %
 * of a worker's CPU on single-recipient triggers, BENCHMARKS.md "Sustained end to end").
 */
export async function insertMessages(db: Db, workspaceId: number, messages: NewMessage[]) {
  if (messages.length === 0) return [];
  const rows = messages.map(({ template_slug, delivered, rendered, ...m }) => ({
    ...m,
    channel_identity: m.channel_identity === undefined ? null : m.channel_identity,
    template: delivered?.template ?? rendered?.template ?? (template_slug === null ? null : { slug: template_slug }),
    ...(rendered ? { content: rendered.content } : {}),
    ...(delivered
      ? {
          status: delivered.status,
          reason: delivered.reason ?? null,
          content: delivered.content ?? null,
          error: delivered.error ?? null,
          attempts: delivered.attempt ? [delivered.attempt] : [],
          triggered: delivered.triggered === true,
          sent: delivered.sent === true,
          delivered: delivered.delivered === true,
        }
      : {}),
  }));
  const { rows: inserted } = await sql<
    Pick<MessageRow, 'id' | 'status' | 'channel' | 'distinct_id' | 'tenant_id' | 'recipient_type'>
  >`insert into messages (id, workspace_id, run_id, execution_id, node_ref, workflow_slug, version_no, recipient_type,
      distinct_id, object_type, object_id, channel, channel_identity, tenant_id, category, idempotency_key, status, reason,
      vendor, template, content, error, attempts, triggered_at, sent_at, delivered_at)
    select m.id, ${workspaceId}::integer, m.run_id, m.execution_id, m.node_ref, m.workflow_slug, m.version_no,
      m.recipient_type, m.distinct_id, m.object_type, m.object_id, m.channel, m.channel_identity, m.tenant_id,
      m.category, m.idempotency_key, m.status, m.reason, m.vendor, m.template, m.content, m.error,
      coalesce(m.attempts, '[]'::jsonb), case when m.triggered then now() end, case when m.sent then now() end,
      case when m.delivered then now() end
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as m(id text, run_id text, execution_id text, node_ref text,
      workflow_slug text, version_no integer, recipient_type text, distinct_id text, object_type text, object_id text,
      channel text, channel_identity jsonb, tenant_id text, category text, idempotency_key text, status text,
      reason text, vendor jsonb, template jsonb, content jsonb, error jsonb, attempts jsonb, triggered boolean,
      sent boolean, delivered boolean)
    on conflict (run_id, node_ref, channel) do nothing
    returning id, status, channel, distinct_id, tenant_id, recipient_type`.execute(db);
  return inserted;
}

/** The messages one step of a run recorded so far, in the order they were recorded. */
export function findStepMessages(db: Db, runId: string, nodeRef: string) {
  return db
    .selectFrom('messages')
    .select(['channel', 'status'])
    .where('run_id', '=', runId)
    .where('node_ref', '=', nodeRef)
    .orderBy('seq')
    .execute();
}

export function findMessage(db: Db, workspaceId: number, id: string) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findMessageById(db: Db, id: string) {
  return db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Messages by id, in one statement (a batch of delivery-status events' bodies). */
export function findMessagesByIds(db: Db, ids: string[]) {
  return db
    .selectFrom('messages')
    .selectAll()
    .where('id', 'in', list(ids))
    .modifyEnd(sql.raw(PLANNED_EACH_TIME))
    .execute();
}

/**
 * A batch of deliveries' messages by id, each with the status of its run's execution (a cancelled run's messages are
 * not sent), in one statement.
 */
export function findMessagesToDeliver(db: Db, ids: string[]) {
  return db
    .selectFrom('messages as m')
    .leftJoin('workflow_runs as r', 'r.id', 'm.run_id')
    .leftJoin('executions as e', 'e.id', 'r.execution_id')
    .selectAll('m')
    .select('e.status as execution_status')
    .where('m.id', 'in', list(ids))
    .modifyEnd(sql.raw(PLANNED_EACH_TIME))
    .execute();
}

export type MessageToDeliver = Awaited<ReturnType<typeof findMessagesToDeliver>>[number];

export interface MessageFilter {
  statuses?: string[];
  channel?: string;
  recipientIds?: string[];
  categories?: string[];
  workflowSlug?: string;
  executionId?: string;
  idempotencyKey?: string;
  messageId?: string;
  tenantId?: string;
  isCampaign?: boolean;
  objectType?: string;
  objectId?: string;
  createdAtGte?: string;
  createdAtLte?: string;
}

const list = (values: string[]) => sql<string>`(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;

function filtered(db: Db, workspaceId: number, f: MessageFilter) {
  let q = db.selectFrom('messages').where('workspace_id', '=', workspaceId);
  if (f.statuses?.length) q = q.where('status', 'in', list(f.statuses));
  if (f.channel) q = q.where('channel', '=', f.channel);
  if (f.recipientIds?.length) q = q.where('distinct_id', 'in', list(f.recipientIds));
  if (f.categories?.length) q = q.where('category', 'in', list(f.categories));
  if (f.workflowSlug) q = q.where('workflow_slug', '=', f.workflowSlug);
  if (f.executionId)
    q = q.where((eb) => eb.or([eb('execution_id', '=', f.executionId!), eb('run_id', '=', f.executionId!)]));
  if (f.idempotencyKey) q = q.where('idempotency_key', '=', f.idempotencyKey);
  if (f.messageId) q = q.where('id', '=', f.messageId);
  if (f.tenantId) q = q.where('tenant_id', '=', f.tenantId);
  if (f.isCampaign !== undefined)
    q = q.where('workflow_slug', f.isCampaign ? 'like' : 'not like', `${BROADCAST_SLUG_PREFIX}%`);
  if (f.objectType) q = q.where('object_type', '=', f.objectType);
  if (f.objectId) q = q.where('object_id', '=', f.objectId);
  if (f.createdAtGte) q = q.where('created_at', '>=', new Date(f.createdAtGte));
  if (f.createdAtLte) q = q.where('created_at', '<=', new Date(f.createdAtLte));
  return q;
}

/** One page of a workspace's messages, oldest first, in two statements. */
export async function listMessages(db: Db, workspaceId: number, filter: MessageFilter, window: CursorWindow) {
  const rows = await filtered(db, workspaceId, filter)
    .selectAll()
    .where(withinWindow('seq', window))
    .orderBy('seq', windowOrder(window))
    .limit(window.limit + 1)
    .execute();
  const totals = await filtered(db, workspaceId, filter)
    .select((eb) => [eb.fn.countAll<number>().as('count'), beyondWindow('seq', window).as('beyond')])
    .executeTakeFirstOrThrow();
  return cursorPage(rows, (row) => Number(row.seq), window, totals);
}

export function lockMessages(trx: Trx, workspaceId: number, ids: string[]) {
  return trx
    .selectFrom('messages')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', list(ids))
    .orderBy('id')
    .forUpdate()
    .execute();
}

/** The message its vendor knows by `providerMessageId` (Twilio's MessageSid), in one workspace, locked. */
export function lockMessageByProviderId(trx: Trx, workspaceId: number, providerMessageId: string) {
  return trx
    .selectFrom('messages')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('provider_message_id', '=', providerMessageId)
    .orderBy('id')
    .limit(1)
    .forUpdate()
    .executeTakeFirst();
}

export interface MessageStateWrite {
  id: string;
  status: string;
  is_read: boolean;
  is_archived: boolean;
  seen_at: string | null;
  read_at: string | null;
  clicked_at: string | null;
  dismissed_at: string | null;
  archived_at: string | null;
}

/**
 * Writes the engagement state of many messages in one statement. The ids are also given as an
 * array: the planner always estimates a record set at 100 rows, and joining on it alone hashes a
 * sequential scan of messages whenever its statistics say the table is small.
 */
export async function saveMessageStates(db: Db, writes: MessageStateWrite[]) {
  if (writes.length === 0) return;
  await sql`
    update messages m set status = w.status, is_read = w.is_read, is_archived = w.is_archived,
      seen_at = w.seen_at, read_at = w.read_at, clicked_at = w.clicked_at, dismissed_at = w.dismissed_at,
      archived_at = w.archived_at
    from jsonb_to_recordset(${JSON.stringify(writes)}::jsonb) as w(id text, status text, is_read boolean,
      is_archived boolean, seen_at timestamptz, read_at timestamptz, clicked_at timestamptz,
      dismissed_at timestamptz, archived_at timestamptz)
    where m.id = w.id and m.id = any(${writes.map((write) => write.id)}::text[])`.execute(db);
}

/**
 * A delivery's outcome on its message: a field left undefined keeps its value, `attempt` is appended
 * to the attempts, and the timestamps named are set unless they are already.
 */
export interface DeliveryUpdate {
  status: string;
  reason?: string | null;
  error?: unknown;
  content?: Record<string, unknown> | null;
  template?: MessageTemplate | null;
  vendor?: { name: string; nickname: string | null } | null;
  attempt?: DeliveryAttempt;
  triggered?: boolean;
  sent?: boolean;
  delivered?: boolean;
  /** The id the vendor gave the message (set when it gave one; kept otherwise). */
  provider_message_id?: string;
}

/** Many deliveries' outcomes in one statement (each row says which fields it sets). */
export async function saveDeliveries(db: Db, updates: (DeliveryUpdate & { id: string })[]) {
  if (updates.length === 0) return;
  await sql`update messages m set status = w.f ->> 'status',
      reason = case when w.f ? 'reason' then w.f ->> 'reason' else m.reason end,
      error = case when w.f ? 'error' then w.f -> 'error' else m.error end,
      content = case when w.f ? 'content' then w.f -> 'content' else m.content end,
      template = case when w.f ? 'template' then w.f -> 'template' else m.template end,
      vendor = case when w.f ? 'vendor' then w.f -> 'vendor' else m.vendor end,
      provider_message_id = coalesce(w.f ->> 'provider_message_id', m.provider_message_id),
      attempts = case when w.f ? 'attempt' then m.attempts || jsonb_build_array(w.f -> 'attempt') else m.attempts end,
      triggered_at = case when w.f ? 'triggered' then coalesce(m.triggered_at, now()) else m.triggered_at end,
      sent_at = case when w.f ? 'sent' then coalesce(m.sent_at, now()) else m.sent_at end,
      delivered_at = case when w.f ? 'delivered' then coalesce(m.delivered_at, now()) else m.delivered_at end
    from jsonb_array_elements(${JSON.stringify(updates.map(deliveryFields))}::jsonb) as w(f)
    where m.id = w.f ->> 'id'${sql.raw(PLANNED_EACH_TIME)}`.execute(db);
}

/** The JSON of one update: undefined fields and false flags are left out (kept as they are). */
function deliveryFields({ triggered, sent, delivered, ...fields }: DeliveryUpdate & { id: string }) {
  return {
    ...fields,
    ...(triggered ? { triggered: true } : {}),
    ...(sent ? { sent: true } : {}),
    ...(delivered ? { delivered: true } : {}),
  };
}
