import { sql } from 'kysely';
import { PLANNED_EACH_TIME, type Db, type Trx } from '../db/database.js';
import type { PayloadSchemaLink } from '../db/types.js';
import type { Recipient } from '../domain/trigger-records.js';

/** Triggers as accepted (executions), their idempotency keys, and the workflows they pin. */

export interface LiveWorkflowRow {
  id: number;
  slug: string;
  is_enabled: boolean;
  version_no: number | null;
  category: string | null;
  trigger_type: string | null;
  payload_schema: PayloadSchemaLink | null;
}

/** The named workflows with their live version, in one statement. */
export function findLiveWorkflows(db: Db, workspaceId: number, slugs: string[]): Promise<LiveWorkflowRow[]> {
  return db
    .selectFrom('workflows')
    .leftJoin('workflow_versions', (join) =>
      join
        .onRef('workflow_versions.workflow_id', '=', 'workflows.id')
        .onRef('workflow_versions.version_no', '=', 'workflows.live_version_no'),
    )
    .select([
      'workflows.id',
      'workflows.slug',
      'workflows.is_enabled',
      'workflow_versions.version_no',
      'workflow_versions.category',
      'workflow_versions.trigger_type',
      'workflow_versions.payload_schema',
    ])
    .where('workflows.workspace_id', '=', workspaceId)
    .where('workflows.slug', 'in', sql<string>`(select jsonb_array_elements_text(${JSON.stringify(slugs)}::jsonb))`)
    .execute();
}

/** Enabled live workflows triggered by one of these event names, with the events that trigger each. */
export function findEventWorkflows(db: Db, workspaceId: number, events: string[]) {
  return db
    .selectFrom('workflows')
    .innerJoin('workflow_versions', (join) =>
      join
        .onRef('workflow_versions.workflow_id', '=', 'workflows.id')
        .onRef('workflow_versions.version_no', '=', 'workflows.live_version_no'),
    )
    .select([
      'workflows.id',
      'workflows.slug',
      'workflow_versions.version_no',
      'workflow_versions.category',
      'workflow_versions.trigger_events',
    ])
    .where('workflows.workspace_id', '=', workspaceId)
    .where('workflows.is_enabled', '=', true)
    .where('workflow_versions.trigger_type', '=', 'event')
    .where(
      sql<boolean>`workflow_versions.trigger_events ?| ${sql.raw('array')}(select jsonb_array_elements_text(${JSON.stringify(events)}::jsonb))`,
    )
    .execute();
}

export function findTenantSettings(db: Db, workspaceId: number, tenantIds: string[]) {
  return db
    .selectFrom('tenants')
    .select(['tenant_id', 'tenant_name', 'settings', 'properties'])
    .where('workspace_id', '=', workspaceId)
    .where('tenant_id', 'in', sql<string>`(select jsonb_array_elements_text(${JSON.stringify(tenantIds)}::jsonb))`)
    .execute();
}

/**
 * Claims idempotency keys for new executions, in one statement. A key used in the last 24 hours is
 * not claimed (its row is left as it is); an older one is taken over. Concurrent claims of one key
 * queue on the primary key, so exactly one of them wins. Returns the keys claimed.
 */
export async function claimIdempotencyKeys(
  trx: Trx,
  workspaceId: number,
  claims: { key: string; executionId: string }[],
): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = await sql<{ idempotency_key: string }>`
    insert into trigger_idempotency_keys (workspace_id, idempotency_key, execution_id)
    select ${workspaceId}, c.k, c.e from jsonb_to_recordset(${JSON.stringify(claims.map((c) => ({ k: c.key, e: c.executionId })))}::jsonb) as c(k text, e text)
    on conflict (workspace_id, idempotency_key) do update
      set execution_id = excluded.execution_id, created_at = now()
      where trigger_idempotency_keys.created_at < now() - interval '24 hours'
    returning idempotency_key`.execute(trx);
  return new Set(rows.rows.map((row) => row.idempotency_key));
}

export async function findIdempotentExecutions(db: Db, workspaceId: number, keys: string[]) {
  if (keys.length === 0) return new Map<string, string>();
  const rows = await db
    .selectFrom('trigger_idempotency_keys')
    .select(['idempotency_key', 'execution_id'])
    .where('workspace_id', '=', workspaceId)
    .where('idempotency_key', 'in', sql<string>`(select jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb))`)
    .execute();
  return new Map(rows.map((row) => [row.idempotency_key, row.execution_id]));
}

export interface NewExecution {
  id: string;
  workflow_id: number | null;
  tree?: unknown;
  workflow_slug: string;
  version_no: number;
  category: string;
  data: Record<string, unknown>;
  actor: Recipient | null;
  tenant_id: string;
  recipients: Recipient[];
  idempotency_key: string | null;
  cancellation_key: string | null;
  source: string;
  /** An invoked workflow: the invoking run and the depth of the chain. */
  parent_run_id?: string | null;
  invoke_depth?: number;
  /** A broadcast's list. */
  list_id?: string | null;
}

export async function insertExecutions(db: Db, workspaceId: number, executions: NewExecution[]) {
  if (executions.length === 0) return;
  await db.executeQuery(
    insertExecutionsQuery(
      db,
      executions.map((e) => ({ ...e, workspace_id: workspaceId })),
    ),
  );
}

/**
 * The insert of insertExecutions (at least one execution, each with its workspace), to run with what
 * must commit with it. One statement text whatever the number of rows (they travel as one JSON
 * parameter), so it is parsed and planned once per connection, however the batches of concurrent
 * requests (engine/trigger-writer.ts) fall.
 */
export function insertExecutionsQuery(db: Db, executions: (NewExecution & { workspace_id: number })[]) {
  return sql`insert into executions (id, workspace_id, workflow_id, workflow_slug, version_no, category, tree, data,
      actor, tenant_id, recipients, idempotency_key, cancellation_key, source, parent_run_id, invoke_depth, list_id)
    select x->>'id', (x->>'workspace_id')::int, (x->>'workflow_id')::bigint, x->>'workflow_slug',
      (x->>'version_no')::int, x->>'category', x->'tree', x->'data',
      x->'actor', x->>'tenant_id', x->'recipients',
      x->>'idempotency_key', x->>'cancellation_key', x->>'source', x->>'parent_run_id',
      coalesce((x->>'invoke_depth')::int, 0), x->>'list_id'
    from jsonb_array_elements(${JSON.stringify(executions)}::jsonb) as x`.compile(db);
}

/** An execution's status alone (a fan-out page stops at a cancelled one). */
export function findExecutionStatus(db: Db, id: string) {
  return db.selectFrom('executions').select('status').where('id', '=', id).executeTakeFirst();
}

/**
 * Several executions by id, in one statement. Planned each time (src/db/database.ts): a trigger batch's
 * lookup in a table every trigger grows; named, its generic plan made while the table was small kept
 * scanning the whole table for every batch of the worker (BENCHMARKS.md, "Sustained, fifth session").
 * The ids go as an array, whose length the planner knows (a set-returning function is always
 * estimated at 100 rows, which made a seq scan look cheaper than a batch's few index lookups).
 */
export function findExecutions(db: Db, ids: string[]) {
  return db
    .selectFrom('executions')
    .selectAll()
    .where('id', '=', sql<string>`any(${ids}::text[])`)
    .modifyEnd(sql.raw(PLANNED_EACH_TIME))
    .execute();
}

/**
 * Cancels the executions matching every given filter that have not been cancelled yet, and their
 * unfinished runs, in two statements. Returns the ids of the executions matched.
 */
export async function cancelExecutions(
  trx: Trx,
  workspaceId: number,
  filter: {
    executionId?: string;
    recipients?: string[];
    idempotencyKey?: string;
    workflowSlug?: string;
    cancellationKey?: string;
    listId?: string;
    /** Broadcasts only (true) or workflow runs only (false). */
    broadcasts: boolean;
  },
): Promise<string[]> {
  let query = trx.updateTable('executions').set({ status: 'cancelled', cancelled_at: sql`now()` });
  query = query.where('workspace_id', '=', workspaceId).where('status', '!=', 'cancelled');
  query = query.where('source', filter.broadcasts ? '=' : '!=', 'broadcast');
  if (filter.listId !== undefined) query = query.where('list_id', '=', filter.listId);
  if (filter.executionId !== undefined) query = query.where('id', '=', filter.executionId);
  if (filter.idempotencyKey !== undefined) query = query.where('idempotency_key', '=', filter.idempotencyKey);
  if (filter.workflowSlug !== undefined) query = query.where('workflow_slug', '=', filter.workflowSlug);
  if (filter.cancellationKey !== undefined) query = query.where('cancellation_key', '=', filter.cancellationKey);
  if (filter.recipients !== undefined)
    query = query.where(
      sql<boolean>`(exists (select 1 from workflow_runs r where r.execution_id = executions.id
        and r.distinct_id in (select jsonb_array_elements_text(${JSON.stringify(filter.recipients)}::jsonb)))
        or exists (select 1 from jsonb_array_elements(executions.recipients) x
        where x->>'distinctId' in (select jsonb_array_elements_text(${JSON.stringify(filter.recipients)}::jsonb))))`,
    );
  const rows = await query.returning('id').execute();
  const ids = rows.map((row) => row.id);
  if (ids.length > 0)
    await trx
      .updateTable('workflow_runs')
      .set({ status: 'cancelled', updated_at: sql`now()` })
      .where('execution_id', 'in', sql<string>`(select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`)
      .where('status', 'in', ['running', 'waiting'])
      .execute();
  return ids;
}
