import { triggersAccepted } from '../telemetry/metrics.js';
import type { Db, Trx } from '../db/database.js';
import { applyUpsert } from '../domain/entity-operations.js';
import { changeUsers } from '../services/users.js';
import { newUlid } from '../ids.js';
import { findObjects } from '../repositories/objects.js';
import { findListIds } from '../repositories/subscriber-lists.js';
import { findLinkedSchemas } from '../repositories/payload-schemas.js';
import { describePayloadErrors, payloadFieldErrors } from '../domain/payload-schemas.js';
import {
  claimIdempotencyKeys,
  findIdempotentExecutions,
  findLiveWorkflows,
  findTenantSettings,
  insertExecutionsQuery,
  type LiveWorkflowRow,
  type NewExecution,
} from '../repositories/executions.js';
import { tenantsTag, workflowsTag, workspaceTag } from '../domain/credential-tags.js';
import type { Recipient, TriggerRecord } from '../domain/trigger-records.js';
import { jobId } from './job-ids.js';
import { QUEUES, type Queue } from './queue.js';
import { triggerWriterOf } from './trigger-writer.js';

/**
 * Accepting triggers (docs/spec/engine.md §1): a batch of records in one transaction, a fixed number
 * of statements whatever its size. A record accepted here has its execution and its first job
 * committed together, so a 202 cannot be lost; a refused record leaves nothing behind.
 */

export type Intake = { ok: true; executionId: string } | { ok: false; status: 400 | 404; message: string };

export interface IntakeRecord extends TriggerRecord {
  source: 'trigger' | 'event' | 'legacy' | 'invoke' | 'broadcast';
  /** A legacy dynamic workflow or a broadcast: its own tree and category, no stored workflow. */
  dynamic?: { tree: unknown; category: string };
  /** Started by another run's invokeworkflow node: that run, and the depth of the chain. */
  invokedBy?: { runId: string; depth: number };
  /** A broadcast: the list whose live members the worker pages through (its recipients stay empty). */
  listId?: string;
  /** When the trigger job may start (a broadcast's delay or trigger_at); now when absent. */
  startAfter?: Date;
}

export const workflowNotFound = (slug: string) => `workflow '${slug}' not found`;

const recipientJson = (recipient: Recipient) => recipient;

/**
 * Where the API keeps the live workflows and tenants triggers name (the credential cache, its
 * entries dropped by every change to them: services/workflows.ts `changeWorkflows`,
 * services/tenants.ts). Only acceptable workflows and existing tenants are kept; a refusal is looked
 * up every time.
 */
export interface IntakeCache {
  lookupMany<T>(
    keys: readonly string[],
    load: (missing: string[]) => Promise<Map<string, { value: T; tags: readonly string[] }>>,
  ): Promise<Map<string, T>>;
}

const SEPARATOR = '\u0000';

/** The workflows that may be triggered (enabled, with a live version), by slug. */
async function liveWorkflowsOf(db: Db, workspaceId: number, slugs: string[], cache: IntakeCache | undefined) {
  const acceptable = (row: LiveWorkflowRow) => row.is_enabled && row.version_no !== null;
  if (!cache) return new Map((await findLiveWorkflows(db, workspaceId, slugs)).map((row) => [row.slug, row]));
  const prefix = `live_workflow:${workspaceId}${SEPARATOR}`;
  const tags = [workflowsTag(workspaceId), workspaceTag(workspaceId)];
  const found = await cache.lookupMany<LiveWorkflowRow>(
    slugs.map((slug) => prefix + slug),
    async (missing) => {
      const rows = await findLiveWorkflows(
        db,
        workspaceId,
        missing.map((key) => key.slice(prefix.length)),
      );
      return new Map(rows.filter(acceptable).map((row) => [prefix + row.slug, { value: row, tags }]));
    },
  );
  return new Map([...found.values()].map((row) => [row.slug, row]));
}

/** The tenants that exist, of those named. */
async function tenantsOf(db: Db, workspaceId: number, tenantIds: string[], cache: IntakeCache | undefined) {
  if (!cache) return new Set((await findTenantSettings(db, workspaceId, tenantIds)).map((t) => t.tenant_id));
  const prefix = `tenant:${workspaceId}${SEPARATOR}`;
  const tags = [tenantsTag(workspaceId), workspaceTag(workspaceId)];
  const found = await cache.lookupMany<string>(
    tenantIds.map((id) => prefix + id),
    async (missing) => {
      const rows = await findTenantSettings(
        db,
        workspaceId,
        missing.map((key) => key.slice(prefix.length)),
      );
      return new Map(rows.map((row) => [prefix + row.tenant_id, { value: row.tenant_id, tags }]));
    },
  );
  return new Set(found.values());
}

/**
 * A record that writes nothing but its execution and its trigger job: no idempotency key to claim, no
 * inline user to store, no object or list to hold while it commits.
 */
const isPlain = (record: IntakeRecord | Intake) =>
  'ok' in record ||
  (record.idempotencyKey === null &&
    record.listId === undefined &&
    [...record.recipients, ...(record.actor ? [record.actor] : [])].every(
      (r) => r.kind === 'user' && (r.transient || !r.inline || Object.keys(r.inline).length === 0),
    ));

const inTransaction = (db: Db): db is Trx => db.isTransaction;

/**
 * Accepts a batch on the caller's transaction, or on the pool: a batch of plain records (isPlain) is
 * then written in one statement, its executions and their trigger jobs together (atomic on its own,
 * so no BEGIN and COMMIT), and any other batch in a transaction of its own.
 */
export function acceptTriggers(
  db: Db,
  queue: Queue,
  workspaceId: number,
  records: (IntakeRecord | Intake)[],
  cache?: IntakeCache,
): Promise<Intake[]> {
  const accepted = inTransaction(db)
    ? accept(db, db, queue, workspaceId, records, cache)
    : records.every(isPlain)
      ? accept(db, undefined, queue, workspaceId, records, cache)
      : db.transaction().execute((trx) => accept(trx, trx, queue, workspaceId, records, cache));
  // Counted when accepted; inside a caller's transaction (an event, an invoked workflow) that is before its commit.
  return accepted.then((results) => {
    triggersAccepted.inc(results.filter((result) => result.ok).length);
    return results;
  });
}

/** `trx` is absent only for a batch of plain records, read and written on the pool. */
async function accept(
  db: Db,
  trx: Trx | undefined,
  queue: Queue,
  workspaceId: number,
  records: (IntakeRecord | Intake)[],
  cache: IntakeCache | undefined,
): Promise<Intake[]> {
  const results: (Intake | undefined)[] = records.map((record) => ('ok' in record ? record : undefined));
  const pending = records
    .map((record, index) => ({ record, index }))
    .filter((item): item is { record: IntakeRecord; index: number } => !('ok' in item.record));
  const refuse = (index: number, status: 400 | 404, message: string) => {
    results[index] = { ok: false, status, message };
  };

  const slugs = [...new Set(pending.filter(({ record }) => !record.dynamic).map(({ record }) => record.workflow))];
  const workflows = await liveWorkflowsOf(db, workspaceId, slugs, cache);
  const objectRefs = pending.flatMap(({ record }) =>
    record.recipients.flatMap((r) => (r.kind === 'object' ? [{ objectType: r.objectType, objectId: r.objectId }] : [])),
  );
  const objects =
    objectRefs.length > 0
      ? new Set((await findObjects(db, workspaceId, objectRefs)).map((o) => `${o.object_type}\u0000${o.object_id}`))
      : new Set<string>();
  const listIds = [...new Set(pending.flatMap(({ record }) => (record.listId === undefined ? [] : [record.listId])))];
  const lists = new Set(
    listIds.length > 0 ? (await findListIds(db, workspaceId, listIds)).map((row) => row.list_id) : [],
  );
  const tenantIds = [...new Set(pending.map(({ record }) => record.tenantId))];
  const tenants = await tenantsOf(db, workspaceId, tenantIds, cache);

  const valid = pending.filter(({ record, index }) => {
    const workflow = workflows.get(record.workflow);
    if (!record.dynamic && (!workflow || !workflow.is_enabled || workflow.version_no === null))
      return (refuse(index, 404, workflowNotFound(record.workflow)), false);
    const missing = record.recipients.find(
      (r) => r.kind === 'object' && !objects.has(`${r.objectType}\u0000${r.objectId}`),
    );
    if (missing && missing.kind === 'object')
      return (refuse(index, 404, `object '${missing.objectType}/${missing.objectId}' not found`), false);
    if (record.listId !== undefined && !lists.has(record.listId))
      return (refuse(index, 404, `list_id: ${record.listId} not found`), false);
    if (!tenants.has(record.tenantId)) return (refuse(index, 404, `tenant '${record.tenantId}' not found`), false);
    return true;
  });

  // An API trigger of a workflow that links a payload schema: its data must satisfy it (a 400 naming the field).
  const linked = valid.flatMap(({ record, index }) => {
    const link = record.source === 'trigger' ? workflows.get(record.workflow)?.payload_schema : null;
    return link ? [{ record, index, link }] : [];
  });
  if (linked.length > 0) {
    const schemas = await findLinkedSchemas(
      db,
      workspaceId,
      linked.map(({ link }) => ({ schema: link.schema, version_no: link.version_no ?? null })),
    );
    const schemaOf = new Map(schemas.map((s) => [`${s.slug}\u0000${s.requested ?? ''}`, s]));
    for (const { record, index, link } of linked) {
      const schema = schemaOf.get(`${link.schema}\u0000${link.version_no ?? ''}`);
      const errors = schema ? payloadFieldErrors(schema, record.data, 'data') : [];
      if (schema && errors.length > 0) refuse(index, 400, describePayloadErrors(schema, errors));
    }
  }
  const accepted = valid.filter(({ index }) => results[index] === undefined);

  // Keys: the first record of a key in this batch claims it; later ones and keys used in the last 24 h
  // answer with the execution that holds the key.
  const ids = new Map(accepted.map(({ index }) => [index, newUlid()]));
  const firstOfKey = new Map<string, number>();
  for (const { record, index } of accepted)
    if (record.idempotencyKey !== null && !firstOfKey.has(record.idempotencyKey))
      firstOfKey.set(record.idempotencyKey, index);
  const claimed = await claimIdempotencyKeys(
    db,
    workspaceId,
    [...firstOfKey].map(([key, index]) => ({ key, executionId: ids.get(index)! })),
  );
  const held = await findIdempotentExecutions(
    db,
    workspaceId,
    [...firstOfKey.keys()].filter((key) => !claimed.has(key)),
  );
  const fresh = accepted.filter(({ record, index }) => {
    const key = record.idempotencyKey;
    if (key === null || (claimed.has(key) && firstOfKey.get(key) === index)) return true;
    const executionId = claimed.has(key) ? ids.get(firstOfKey.get(key)!)! : held.get(key)!;
    results[index] = { ok: true, executionId };
    return false;
  });

  // Inline users are stored as upsert stores them, unless transient (used by their run only).
  const changes = fresh.flatMap(({ record }) =>
    [...record.recipients, ...(record.actor ? [record.actor] : [])].flatMap((r) =>
      r.kind === 'user' && r.inline && !r.transient && Object.keys(r.inline).length > 0
        ? [{ distinctId: r.distinctId, apply: (s: Parameters<typeof applyUpsert>[0]) => applyUpsert(s, r.inline!) }]
        : [],
    ),
  );
  // Only a transaction stores users (a plain batch has none to store).
  if (trx) await changeUsers(trx, workspaceId, changes, { create: true });

  const executions: NewExecution[] = fresh.map(({ record, index }) => {
    const workflow = record.dynamic
      ? { id: null, slug: record.workflow, version_no: 0, category: record.dynamic.category }
      : workflows.get(record.workflow)!;
    return {
      id: ids.get(index)!,
      workflow_id: workflow.id,
      ...(record.dynamic ? { tree: record.dynamic.tree } : {}),
      workflow_slug: workflow.slug,
      version_no: workflow.version_no!,
      category: workflow.category!,
      data: record.data,
      actor: record.actor ? (recipientJson(record.actor) as unknown as Record<string, unknown>) : null,
      tenant_id: record.tenantId,
      recipients: record.recipients.map(recipientJson),
      idempotency_key: record.idempotencyKey,
      cancellation_key: record.cancellationKey,
      source: record.source,
      list_id: record.listId ?? null,
      ...(record.invokedBy ? { parent_run_id: record.invokedBy.runId, invoke_depth: record.invokedBy.depth } : {}),
    };
  });
  const startAfter = new Map(fresh.map(({ record, index }) => [ids.get(index)!, record.startAfter]));
  const jobs = executions.map((e) => {
    const after = startAfter.get(e.id);
    return {
      data: { executionId: e.id },
      options: { id: jobId('trigger', e.id), ...(after ? { startAfter: after } : {}) },
    };
  });
  // The trigger queue does not NOTIFY on insert (engine/queue.ts, WOKEN_BY_SENDER): a transaction wakes
  // the workers on its commit; a plain batch is written with those of concurrent requests, which wake
  // them after their statement (engine/trigger-writer.ts).
  const rows = executions.map((e) => ({ ...e, workspace_id: workspaceId }));
  if (executions.length > 0 && trx) {
    await queue.sendManyWith(trx, QUEUES.trigger, jobs, insertExecutionsQuery(trx, rows));
    if (jobs.some((job) => !job.options.startAfter)) await queue.notifyIn(trx, QUEUES.trigger);
  } else if (executions.length > 0) {
    await triggerWriterOf(db, queue).write(rows, jobs);
  }
  for (const e of executions) results[[...ids].find(([, id]) => id === e.id)![0]] = { ok: true, executionId: e.id };
  return results as Intake[];
}
