import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import {
  contentOf,
  hasChanges,
  namedTemplates,
  treeWithSettings,
  workflowErrors,
  type WorkflowReferences,
} from '../domain/workflow-rules.js';
import { badRequest, notFoundErrors } from '../errors.js';
import type { ShownWorkflow } from '../repositories/workflows.js';
import { findLiveCategoryNames } from '../repositories/preference-categories.js';
import { findTemplateStates } from '../repositories/templates.js';
import { commitWorkflowDraft, findLiveWorkflowVersion, listWorkflows } from '../repositories/workflow-versions.js';
import {
  deleteWorkflow as deleteWorkflowRow,
  findWorkflow,
  setWorkflowEnabled,
  upsertWorkflowDraft,
  type WorkflowRow,
} from '../repositories/workflows.js';
import { matcher, WORKFLOW_SLUG_PATTERN } from '../schemas/identifiers.js';
import { resolveLink } from './registered-events.js';
import { changeCredentials, type CredentialCache } from './credential-changes.js';
import { workflowsTag } from '../domain/credential-tags.js';
import type { WorkflowBody, WorkflowContent } from '../schemas/workflows.js';

/**
 * A change to a workspace's workflows, in one transaction with its announcement: the API's cached
 * trigger lookups (src/engine/intake.ts) drop that workspace's workflows here after the commit, and on
 * every other instance when it hears the NOTIFY, as credentials are dropped.
 */
export const changeWorkflows = <T>(
  db: Db,
  cache: CredentialCache | undefined,
  workspaceId: number,
  work: (trx: Trx) => Promise<T>,
) => changeCredentials(db, cache, async (trx) => ({ value: await work(trx), changed: [workflowsTag(workspaceId)] }));

/** A workflow to show, and what it names as it is now (live categories, templates), which it is validated against. */
interface Answer {
  shown: ShownWorkflow;
  known: WorkflowReferences;
}

/**
 * Workflows: authored as drafts, committed into numbered versions; the live version is what runs.
 * Every answer carries `known`, what a workflow is validated against.
 */

/** What these workflows name, read as it is now: the live categories, and the templates their delivery nodes name. */
async function workflowReferences(
  db: Db,
  workspaceId: number,
  contents: Pick<WorkflowContent, 'tree'>[],
): Promise<WorkflowReferences> {
  const [categories, templates] = await Promise.all([
    findLiveCategoryNames(db, workspaceId),
    findTemplateStates(db, workspaceId, namedTemplates(contents)),
  ]);
  return { categories, templates };
}

const isWorkflowSlug = matcher(WORKFLOW_SLUG_PATTERN);

/** A link must name a committed payload schema (and a version of it that exists): 400 otherwise. */
async function payloadSchemaLink(db: Db, workspaceId: number, link: { schema: string; version_no?: number | null }) {
  await resolveLink(db, workspaceId, link);
  return { schema: link.schema, version_no: link.version_no ?? null };
}

/** The content a shown workflow is validated with: its live version's, or its draft's. */
const shownContent = ({ workflow, live }: ShownWorkflow) => live ?? workflow;

type CommitOutcome =
  | { outcome: 'unchanged'; live: NonNullable<ShownWorkflow['live']> }
  | { outcome: 'invalid'; errors: string[] }
  | { outcome: 'committed'; shown: ShownWorkflow };

/**
 * The one commit path of a workflow draft, whoever asks (the commit endpoint, or an upsert with
 * commit=true): a draft that changes nothing live is not committed; then an invalid draft is not
 * committed; otherwise it becomes the next version. The caller holds the workflow row's lock.
 */
async function commitDraft(
  trx: Trx,
  workflow: WorkflowRow,
  known: WorkflowReferences,
  input: { commitMessage: string | null; actor: ActorColumn | null },
): Promise<CommitOutcome> {
  const live = await findLiveWorkflowVersion(trx, workflow);
  if (live && !hasChanges(workflow, live)) return { outcome: 'unchanged', live };
  const errors = workflowErrors(contentOf(workflow), known);
  if (errors.length > 0) return { outcome: 'invalid', errors };
  const committed = await commitWorkflowDraft(trx, workflow.id, input);
  return { outcome: 'committed', shown: { workflow: committed.workflow, live: committed.version } };
}

export async function listWorkflowsShown(
  db: Db,
  workspaceId: number,
  query: { mode: 'draft' | 'live'; slugs?: string; limit: number; offset: number },
) {
  const { mode, limit, offset } = query;
  const slugs = query.slugs
    ?.split(',')
    .map((slug) => slug.trim())
    .filter(Boolean);
  const { rows, count } = await listWorkflows(db, workspaceId, mode, {
    slugs: slugs?.length ? slugs : undefined,
    limit,
    offset,
  });
  const shown = rows.map(({ workflow, live }): ShownWorkflow =>
    mode === 'live' && live ? { workflow, live } : { workflow },
  );
  const known = await workflowReferences(db, workspaceId, shown.map(shownContent));
  return { shown, count, known };
}

export async function getWorkflow(db: Db, workspaceId: number, slug: string, mode: 'draft' | 'live'): Promise<Answer> {
  const workflow = await findWorkflow(db, workspaceId, slug);
  if (!workflow) throw notFoundErrors.workflow(slug);
  let shown: ShownWorkflow = { workflow };
  if (mode === 'live') {
    const live = await findLiveWorkflowVersion(db, workflow);
    if (!live) throw notFoundErrors.liveWorkflow(slug);
    shown = { workflow, live };
  }
  return { shown, known: await workflowReferences(db, workspaceId, [shownContent(shown)]) };
}

/** Creates a workflow or replaces its draft; with `commit`, also commits it when it is valid and changes something. */
export async function saveWorkflowDraft(
  trx: Trx,
  workspaceId: number,
  slug: string,
  body: WorkflowBody,
  options: { commit: boolean; commitMessage: string | null; actor: ActorColumn | null },
): Promise<Answer> {
  // The slug is the workflow's address, so a malformed one is refused outright rather than stored as an invalid draft.
  if (!isWorkflowSlug(slug))
    throw badRequest(`workflow slug '${slug}' is invalid: use lowercase letters, digits, - and _`, {
      slug: 'is invalid',
    });
  const { tree, errors } = treeWithSettings(body.tree, { ratelimit: body.ratelimit, conditions: body.conditions });
  const conflict = Object.keys(errors)[0];
  if (conflict) throw badRequest(`${conflict} ${errors[conflict]}`, errors);
  const content = {
    name: body.name,
    description: body.description ?? null,
    category: body.category,
    trigger_type: body.trigger_type,
    trigger_events: body.trigger_events ?? [],
    tags: body.tags ?? [],
    tree,
    payload_schema: body.payload_schema ? await payloadSchemaLink(trx, workspaceId, body.payload_schema) : null,
  };
  const workflow = await upsertWorkflowDraft(trx, workspaceId, {
    slug,
    content,
    isEnabled: body.is_enabled ?? undefined,
    actor: options.actor,
  });
  const known = await workflowReferences(trx, workspaceId, [content]);
  if (!options.commit) return { shown: { workflow }, known };
  const committed = await commitDraft(trx, workflow, known, options);
  if (committed.outcome === 'committed') return { shown: committed.shown, known };
  return {
    shown: committed.outcome === 'unchanged' ? { workflow, live: committed.live } : { workflow },
    known,
  };
}

/** PATCH …/commit/: the draft becomes the live version, or a 400 says why it cannot. */
export async function commitWorkflow(
  trx: Trx,
  workspaceId: number,
  slug: string,
  input: { commitMessage: string | null; actor: ActorColumn | null },
): Promise<Answer> {
  // Locking the workflow row makes a concurrent commit of the same workflow wait, then find nothing left to commit.
  const workflow = await findWorkflow(trx, workspaceId, slug, { lock: true });
  if (!workflow) throw notFoundErrors.workflow(slug);
  const known = await workflowReferences(trx, workspaceId, [workflow]);
  const committed = await commitDraft(trx, workflow, known, input);
  if (committed.outcome === 'unchanged')
    throw badRequest(`workflow '${slug}' has no changes to commit since version ${committed.live.version_no}`);
  if (committed.outcome === 'invalid')
    throw badRequest(`workflow '${slug}' is invalid and cannot be committed: ${committed.errors.join('; ')}`, {
      errors: committed.errors,
    });
  return { shown: committed.shown, known };
}

/** Takes effect at once, no commit needed. */
export async function enableWorkflow(
  db: Db,
  workspaceId: number,
  slug: string,
  isEnabled: boolean,
  actor: ActorColumn | null,
): Promise<Answer> {
  const workflow = await setWorkflowEnabled(db, workspaceId, slug, isEnabled, actor);
  if (!workflow) throw notFoundErrors.workflow(slug);
  return { shown: { workflow }, known: await workflowReferences(db, workspaceId, [workflow]) };
}

/** Deletes a workflow permanently: draft, live version and history. */
export async function deleteWorkflow(db: Db, workspaceId: number, slug: string) {
  if (!(await deleteWorkflowRow(db, workspaceId, slug))) throw notFoundErrors.workflow(slug);
}
