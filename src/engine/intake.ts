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
import type { PayloadSchemaLink } from '../db/types.js';
import { tenantsTag, workflowsTag, workspaceTag } from '../domain/credential-tags.js';
import type { Recipient, TriggerRecord } from '../domain/trigger-records.js';
import { QUEUES, type Queue } from './queue.js';
import { groupTriggerJobs, triggerJob } from './trigger-jobs.js';
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

/**
 * Accepts a batch from the pool (a route): a batch of plain records (isPlain) is written in one
 * statement, its executions and their trigger jobs together (atomic on its own, so no BEGIN and
 * COMMIT), any other batch in a transaction of its own.
 */
export function acceptTriggers(
  db: Db,
  queue: Queue,
  workspaceId: number,
  records: (IntakeRecord | Intake)[],
  cache?: IntakeCache,
): Promise<Intake[]> {
  // A caller's transaction takes acceptTriggersIn: this one would commit apart from it.
  if (db.isTransaction) throw new Error('acceptTriggers takes the pool; in a transaction, use acceptTriggersIn');
  return counted(
    records.every(isPlain)
      ? accept({ db, trx: undefined }, queue, workspaceId, records, cache)
      : db.transaction().execute((trx) => accept({ db: trx, trx }, queue, workspaceId, records, cache)),
  );
}

/**
 * Accepts a batch in the caller's transaction (an event's, an invoking run's): its executions stand
 * or fall with what the caller writes.
 */
export function acceptTriggersIn(trx: Trx, queue: Queue, workspaceId: number, records: IntakeRecord[]) {
  return counted(accept({ db: trx, trx }, queue, workspaceId, records, undefined));
}

// Counted when accepted; inside a caller's transaction (an event, an invoked workflow) that is before its commit.
const counted = (accepted: Promise<Intake[]>) =>
  accepted.then((results) => {
    triggersAccepted.inc(results.filter((result) => result.ok).length);
    return results;
  });

/** Where a batch reads and writes: `trx` is absent only for a batch of plain records, read and written on the pool. */
interface Writer {
  db: Db;
  trx: Trx | undefined;
}

/** The version a record runs: its live workflow's, or (a dynamic record) its own tree as version 0. */
interface Target {
  id: number | null;
  slug: string;
  version_no: number;
  category: string;
  payload_schema: PayloadSchemaLink | null;
}

function targetOf(record: IntakeRecord, workflows: Map<string, LiveWorkflowRow>): Target | undefined {
  const { dynamic } = record;
  if (dynamic)
    return { id: null, slug: record.workflow, version_no: 0, category: dynamic.category, payload_schema: null };
  const live = workflows.get(record.workflow);
  if (!live || !live.is_enabled || live.version_no === null || live.category === null) return undefined;
  return { ...live, version_no: live.version_no, category: live.category };
}

/** A record on its way through the intake: its place in the answer, and the version it runs. */
interface Candidate {
  record: IntakeRecord;
  index: number;
  target: Target;
}

/** A candidate past every refusal, with the execution it starts. */
interface Fresh extends Candidate {
  executionId: string;
}

/** The phases, each over the candidates still standing: look up, refuse, claim keys, store users, write. */
async function accept(
  writer: Writer,
  queue: Queue,
  workspaceId: number,
  records: (IntakeRecord | Intake)[],
  cache: IntakeCache | undefined,
): Promise<Intake[]> {
  const answers: (Intake | undefined)[] = records.map((record) => ('ok' in record ? record : undefined));
  const answer = (candidate: Candidate, result: Intake) => {
    answers[candidate.index] = result;
  };
  const pending = records.flatMap((record, index) => ('ok' in record ? [] : [{ record, index }]));
  const lookups = await lookUp(writer.db, workspaceId, pending, cache);
  const candidates: Candidate[] = [];
  for (const { record, index } of pending) {
    const target = targetOf(record, lookups.workflows);
    const refused = target ? refusalOf(record, lookups) : notFound(workflowNotFound(record.workflow));
    if (refused || !target) answers[index] = refused;
    else candidates.push({ record, index, target });
  }
  for (const [candidate, refused] of await payloadRefusals(writer.db, workspaceId, candidates))
    answer(candidate, refused);
  const accepted = candidates
    .filter((candidate) => answers[candidate.index] === undefined)
    .map((candidate): Fresh => ({ ...candidate, executionId: newUlid() }));
  const { fresh, held } = await claimKeys(writer, workspaceId, accepted);
  for (const [candidate, executionId] of held)
    answer(
      candidate,
      executionId === undefined
        ? // The key's holder expired between the claim and the read: rare, and answered rather than guessed.
          {
            ok: false,
            status: 400,
            message: `idempotency_key '${candidate.record.idempotencyKey}' is being released: send it again`,
          }
        : { ok: true, executionId },
    );
  // Only a transaction stores users (a plain batch has none to store).
  if (writer.trx) await storeInlineUsers(writer.trx, workspaceId, fresh);
  await writeExecutions(writer, queue, workspaceId, fresh);
  for (const candidate of fresh) answer(candidate, { ok: true, executionId: candidate.executionId });
  if (answers.includes(undefined)) throw new Error('the intake left a record unanswered');
  return answers as Intake[];
}

interface Lookups {
  workflows: Map<string, LiveWorkflowRow>;
  objects: Set<string>;
  lists: Set<string>;
  tenants: Set<string>;
}

const objectKey = (objectType: string, objectId: string) => `${objectType}${SEPARATOR}${objectId}`;

/** What the records name, read once for the batch: live workflows, objects, lists, tenants. */
async function lookUp(
  db: Db,
  workspaceId: number,
  pending: { record: IntakeRecord }[],
  cache: IntakeCache | undefined,
): Promise<Lookups> {
  const records = pending.map(({ record }) => record);
  const slugs = [...new Set(records.filter((record) => !record.dynamic).map((record) => record.workflow))];
  const workflows = await liveWorkflowsOf(db, workspaceId, slugs, cache);
  const objectRefs = records.flatMap((record) =>
    record.recipients.flatMap((r) => (r.kind === 'object' ? [{ objectType: r.objectType, objectId: r.objectId }] : [])),
  );
  const objects = new Set(
    objectRefs.length > 0
      ? (await findObjects(db, workspaceId, objectRefs)).map((o) => objectKey(o.object_type, o.object_id))
      : [],
  );
  const listIds = [...new Set(records.flatMap((record) => (record.listId === undefined ? [] : [record.listId])))];
  const lists = new Set(
    listIds.length > 0 ? (await findListIds(db, workspaceId, listIds)).map((row) => row.list_id) : [],
  );
  const tenants = await tenantsOf(db, workspaceId, [...new Set(records.map((record) => record.tenantId))], cache);
  return { workflows, objects, lists, tenants };
}

const notFound = (message: string): Intake => ({ ok: false, status: 404, message });

/** Why a record of a runnable workflow cannot run (a 404 naming what does not exist); nothing when it can. */
function refusalOf(record: IntakeRecord, lookups: Lookups): Intake | undefined {
  const refuse = notFound;
  for (const r of record.recipients)
    if (r.kind === 'object' && !lookups.objects.has(objectKey(r.objectType, r.objectId)))
      return refuse(`object '${r.objectType}/${r.objectId}' not found`);
  if (record.listId !== undefined && !lookups.lists.has(record.listId))
    return refuse(`list_id: ${record.listId} not found`);
  if (!lookups.tenants.has(record.tenantId)) return refuse(`tenant '${record.tenantId}' not found`);
  return undefined;
}

/** An API trigger of a workflow that links a payload schema: its data must satisfy it (a 400 naming the field). */
async function payloadRefusals(db: Db, workspaceId: number, candidates: Candidate[]) {
  const refusals = new Map<Candidate, Intake>();
  const linked = candidates.flatMap((candidate) => {
    const link = candidate.record.source === 'trigger' ? candidate.target.payload_schema : null;
    return link ? [{ candidate, link }] : [];
  });
  if (linked.length === 0) return refusals;
  const schemas = await findLinkedSchemas(
    db,
    workspaceId,
    linked.map(({ link }) => ({ schema: link.schema, version_no: link.version_no ?? null })),
  );
  const schemaOf = new Map(schemas.map((s) => [`${s.slug}${SEPARATOR}${s.requested ?? ''}`, s]));
  for (const { candidate, link } of linked) {
    const schema = schemaOf.get(`${link.schema}${SEPARATOR}${link.version_no ?? ''}`);
    const errors = schema ? payloadFieldErrors(schema, candidate.record.data, 'data') : [];
    if (schema && errors.length > 0)
      refusals.set(candidate, { ok: false, status: 400, message: describePayloadErrors(schema, errors) });
  }
  return refusals;
}

/**
 * Idempotency keys: the first record of a key in this batch claims it; later ones, and keys used in
 * the last 24 h, answer with the execution that holds the key (`held`) and start nothing.
 */
async function claimKeys(writer: Writer, workspaceId: number, accepted: Fresh[]) {
  const firstOfKey = new Map<string, Fresh>();
  for (const candidate of accepted) {
    const key = candidate.record.idempotencyKey;
    if (key !== null && !firstOfKey.has(key)) firstOfKey.set(key, candidate);
  }
  if (firstOfKey.size === 0) return { fresh: accepted, held: new Map<Candidate, string | undefined>() };
  // A claim stands or falls with the executions it names: a record with a key is never plain (isPlain).
  if (!writer.trx) throw new Error('idempotency keys are claimed in a transaction');
  const claimed = await claimIdempotencyKeys(
    writer.trx,
    workspaceId,
    [...firstOfKey].map(([key, first]) => ({ key, executionId: first.executionId })),
  );
  const before = await findIdempotentExecutions(
    writer.trx,
    workspaceId,
    [...firstOfKey.keys()].filter((key) => !claimed.has(key)),
  );
  const fresh: Fresh[] = [];
  const held = new Map<Candidate, string | undefined>();
  for (const candidate of accepted) {
    const key = candidate.record.idempotencyKey;
    const first = key === null ? undefined : firstOfKey.get(key);
    if (key === null || (claimed.has(key) && first === candidate)) fresh.push(candidate);
    else {
      held.set(candidate, claimed.has(key) ? first?.executionId : before.get(key));
    }
  }
  return { fresh, held };
}

/** Inline users are stored as upsert stores them, unless transient (used by their run only). */
async function storeInlineUsers(trx: Trx, workspaceId: number, fresh: Fresh[]) {
  const changes = fresh.flatMap(({ record }) =>
    [...record.recipients, ...(record.actor ? [record.actor] : [])].flatMap((r) =>
      r.kind === 'user' && r.inline && !r.transient && Object.keys(r.inline).length > 0
        ? [{ distinctId: r.distinctId, apply: (s: Parameters<typeof applyUpsert>[0]) => applyUpsert(s, r.inline!) }]
        : [],
    ),
  );
  await changeUsers(trx, workspaceId, changes, { create: true });
}

/** The execution a record starts: its target's version, and (dynamic) its own tree. */
function executionOf({ record, target: workflow, executionId }: Fresh): NewExecution {
  return {
    id: executionId,
    workflow_id: workflow.id,
    ...(record.dynamic ? { tree: record.dynamic.tree } : {}),
    workflow_slug: workflow.slug,
    version_no: workflow.version_no,
    category: workflow.category,
    data: record.data,
    actor: record.actor ? recipientJson(record.actor) : null,
    tenant_id: record.tenantId,
    recipients: record.recipients.map(recipientJson),
    idempotency_key: record.idempotencyKey,
    cancellation_key: record.cancellationKey,
    source: record.source,
    list_id: record.listId ?? null,
    ...(record.invokedBy ? { parent_run_id: record.invokedBy.runId, invoke_depth: record.invokedBy.depth } : {}),
  };
}

/** The executions and their trigger jobs (one per group of executions due now: engine/trigger-jobs.ts), written together. */
async function writeExecutions(writer: Writer, queue: Queue, workspaceId: number, fresh: Fresh[]) {
  if (fresh.length === 0) return;
  const rows = fresh.map((candidate) => ({ ...executionOf(candidate), workspace_id: workspaceId }));
  const jobs = fresh.map(({ record, executionId }) => triggerJob(workspaceId, executionId, record.startAfter));
  // The trigger queue does not NOTIFY on insert (engine/queue.ts, WOKEN_BY_SENDER): a transaction wakes
  // the workers on its commit; a plain batch is written with those of concurrent requests, which wake
  // them after their statement (engine/trigger-writer.ts, which groups the jobs of all it writes together).
  if (writer.trx) {
    const grouped = groupTriggerJobs(jobs);
    await queue.sendManyWith(writer.trx, QUEUES.trigger, grouped, insertExecutionsQuery(writer.trx, rows));
    if (jobs.some((job) => !job.options.startAfter)) await queue.notifyIn(writer.trx, QUEUES.trigger);
  } else await triggerWriterOf(writer.db, queue).write(rows, jobs);
}
