import { sql, type Selectable } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import type { ActorColumn, WorkflowVersionsTable } from '../db/types.js';
import { WORKFLOW_COLUMNS } from './workflows.js';

export type WorkflowVersionRow = Selectable<WorkflowVersionsTable>;
/** A version as read through to_json: its timestamp arrives as a string. */
export type WorkflowVersionRecord = Omit<WorkflowVersionRow, 'committed_at'> & { committed_at: Date | string };

/** What a commit copies from the draft (the workflow row) into the version. */
const VERSIONED_COLUMNS = [
  'name',
  'description',
  'category',
  'trigger_type',
  'trigger_events',
  'tags',
  'tree',
  'payload_schema',
] as const;

const VERSION_COLUMNS = [
  'workflow_id',
  'version_no',
  ...VERSIONED_COLUMNS,
  'commit_message',
  'committed_at',
  'committed_by',
] as const;

/** The version that is live, or undefined for a workflow never committed. */
export async function findLiveWorkflowVersion(
  db: Db,
  workflow: { id: number; live_version_no: number | null },
): Promise<WorkflowVersionRow | undefined> {
  if (workflow.live_version_no === null) return undefined;
  return db
    .selectFrom('workflow_versions')
    .select(VERSION_COLUMNS)
    .where('workflow_id', '=', workflow.id)
    .where('version_no', '=', workflow.live_version_no)
    .executeTakeFirst();
}

/**
 * Snapshots the draft as the next version and points the workflow at it. The (workflow_id,
 * version_no) primary key turns a racing commit that computed the same number into an error.
 */
export async function commitWorkflowDraft(
  trx: Trx,
  workflowId: number,
  input: { commitMessage: string | null; actor: ActorColumn | null },
) {
  const version = await trx
    .insertInto('workflow_versions')
    .columns(['workflow_id', 'version_no', ...VERSIONED_COLUMNS, 'commit_message', 'committed_by'])
    .expression((eb) =>
      eb
        .selectFrom('workflows')
        .select([
          'id',
          sql<number>`(select coalesce(max(v.version_no), 0) + 1 from workflow_versions v where v.workflow_id = workflows.id)`.as(
            'version_no',
          ),
          ...VERSIONED_COLUMNS,
          sql<string | null>`${input.commitMessage}::text`.as('commit_message'),
          sql`${JSON.stringify(input.actor)}::jsonb`.as('committed_by'),
        ])
        .where('id', '=', workflowId),
    )
    .returning(VERSION_COLUMNS)
    .executeTakeFirstOrThrow();
  const workflow = await trx
    .updateTable('workflows')
    .set({ live_version_no: version.version_no })
    .where('id', '=', workflowId)
    .returning(WORKFLOW_COLUMNS)
    .executeTakeFirstOrThrow();
  return { workflow, version };
}

export interface WorkflowListFilter {
  slugs?: string[];
  limit: number;
  offset: number;
}

/** One page of workflows in draft mode (every workflow) or live mode (committed ones, with their live version). */
export async function listWorkflows(db: Db, workspaceId: number, mode: 'draft' | 'live', filter: WorkflowListFilter) {
  let base = db.selectFrom('workflows').where('workflows.workspace_id', '=', workspaceId);
  if (filter.slugs) base = base.where('workflows.slug', 'in', filter.slugs);
  if (mode === 'live') base = base.where('workflows.live_version_no', 'is not', null);
  const [rows, total] = await Promise.all([
    base
      .leftJoin('workflow_versions', (join) =>
        join
          .onRef('workflow_versions.workflow_id', '=', 'workflows.id')
          .onRef('workflow_versions.version_no', '=', 'workflows.live_version_no'),
      )
      .select(WORKFLOW_COLUMNS.map((column) => `workflows.${column}` as const))
      // The live version as one JSON value (null in draft mode before a first commit).
      .select((eb) => eb.fn.toJson('workflow_versions').as('live'))
      .orderBy('workflows.slug')
      .limit(filter.limit)
      .offset(filter.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map(({ live, ...workflow }) => ({ workflow, live: live as WorkflowVersionRecord | null })),
    count: Number(total.count),
  };
}
