import { sql, type Selectable } from 'kysely';
import type { Db, LockOption } from '../db/database.js';
import type { ActorColumn, WorkflowsTable } from '../db/types.js';
import type { WorkflowContent } from '../schemas/workflows.js';
import type { WorkflowVersionRecord } from './workflow-versions.js';

export type WorkflowRow = Omit<Selectable<WorkflowsTable>, 'workspace_id'>;

export const WORKFLOW_COLUMNS = [
  'id',
  'slug',
  'is_enabled',
  'name',
  'description',
  'category',
  'trigger_type',
  'trigger_events',
  'tags',
  'tree',
  'live_version_no',
  'created_at',
  'updated_at',
  'updated_by',
  'last_executed_at',
  'payload_schema',
] as const;

/** The workflow row is its draft; `lock` holds it until the transaction ends, so commits serialize. */
export async function findWorkflow<H extends Db>(
  db: H,
  workspaceId: number,
  slug: string,
  options: LockOption<H> = {},
): Promise<WorkflowRow | undefined> {
  let query = db
    .selectFrom('workflows')
    .select(WORKFLOW_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Creates the workflow or replaces its draft content; `is_enabled` changes only when given. */
export function upsertWorkflowDraft(
  db: Db,
  workspaceId: number,
  input: { slug: string; content: WorkflowContent; isEnabled?: boolean; actor: ActorColumn | null },
): Promise<WorkflowRow> {
  const { content } = input;
  const values = {
    name: content.name,
    description: content.description,
    category: content.category,
    trigger_type: content.trigger_type,
    trigger_events: JSON.stringify(content.trigger_events),
    tags: JSON.stringify(content.tags),
    tree: JSON.stringify(content.tree),
    payload_schema: content.payload_schema === null ? null : JSON.stringify(content.payload_schema),
    updated_at: sql<Date>`now()`,
    updated_by: JSON.stringify(input.actor),
  };
  return db
    .insertInto('workflows')
    .values({ workspace_id: workspaceId, slug: input.slug, is_enabled: input.isEnabled ?? true, ...values })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'slug'])
        .doUpdateSet(input.isEnabled === undefined ? values : { ...values, is_enabled: input.isEnabled }),
    )
    .returning(WORKFLOW_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function setWorkflowEnabled(
  db: Db,
  workspaceId: number,
  slug: string,
  isEnabled: boolean,
  actor: ActorColumn | null,
) {
  return db
    .updateTable('workflows')
    .set({ is_enabled: isEnabled, updated_at: sql<Date>`now()`, updated_by: JSON.stringify(actor) })
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .returning(WORKFLOW_COLUMNS)
    .executeTakeFirst();
}

/** Permanent: the draft, the live version and the history go together (versions cascade). */
export async function deleteWorkflow(db: Db, workspaceId: number, slug: string): Promise<boolean> {
  const row = await db
    .deleteFrom('workflows')
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The categories that enabled workflows with a live version send under: those must stay defined. */
export async function findCategoriesOfEnabledLiveWorkflows(db: Db, workspaceId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('workflows')
    .innerJoin('workflow_versions', (join) =>
      join
        .onRef('workflow_versions.workflow_id', '=', 'workflows.id')
        .onRef('workflow_versions.version_no', '=', 'workflows.live_version_no'),
    )
    .select('workflow_versions.category')
    .distinct()
    .where('workflows.workspace_id', '=', workspaceId)
    .where('workflows.is_enabled', '=', true)
    .execute();
  return rows.map((row) => row.category);
}

/**
 * Triggers of these workflows ran (a batch of trigger jobs): each `last_executed_at` moves forward to
 * the latest of its times, never back, in one statement. The rows are locked in id order first, so two
 * batches naming the same workflows never deadlock.
 */
export async function markWorkflowsExecuted(db: Db, marks: { workflowId: number; at: Date }[]) {
  if (marks.length === 0) return;
  const latest = new Map<number, Date>();
  for (const { workflowId, at } of marks) {
    const seen = latest.get(workflowId);
    if (!seen || seen < at) latest.set(workflowId, at);
  }
  const rows = JSON.stringify([...latest].map(([id, at]) => ({ id, at: at.toISOString() })));
  await sql`
    update workflows w set last_executed_at = m.at
    from jsonb_to_recordset(${rows}::jsonb) as m(id bigint, at timestamptz)
    where w.id = m.id
      and w.id in (select id from workflows where id in (select (x->>'id')::bigint from jsonb_array_elements(${rows}::jsonb) x) order by id for update)
      and (w.last_executed_at is null or w.last_executed_at < m.at)`.execute(db);
}

/** A workflow as a service shows it: its row and, when it has one, its live version. */
export interface ShownWorkflow {
  workflow: WorkflowRow;
  live?: WorkflowVersionRecord;
}
