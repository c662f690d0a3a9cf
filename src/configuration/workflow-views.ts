import { isDeepStrictEqual } from 'node:util';
import { presentWorkflow, type WorkflowContent, type WorkflowView } from '../schemas/workflows.js';
import { validationResult } from '../schemas/versioning.js';
import { workflowErrors } from './workflow-rules.js';
import type { WorkflowRow } from '../repositories/workflows.js';
import type { WorkflowVersionRecord } from '../repositories/workflow-versions.js';

/** A workflow seen in draft mode (its row) or live mode (its row's flags + its live version). */

type ContentSource = Pick<WorkflowRow, 'name' | 'description' | 'category' | 'trigger_type' | 'trigger_events' | 'tags' | 'tree'>;

export const contentOf = (source: ContentSource): WorkflowContent => ({
  name: source.name,
  description: source.description,
  category: source.category,
  trigger_type: source.trigger_type,
  trigger_events: source.trigger_events,
  tags: source.tags,
  tree: source.tree,
});

/** Whether committing the draft would change what is live. */
export const hasChanges = (draft: ContentSource, live: ContentSource | undefined) => !live || !isDeepStrictEqual(contentOf(draft), contentOf(live));

export const draftView = (workflow: WorkflowRow): WorkflowView => ({
  slug: workflow.slug,
  is_enabled: workflow.is_enabled,
  created_at: workflow.created_at,
  last_executed_at: workflow.last_executed_at,
  content: contentOf(workflow),
  status: 'draft',
  version_no: (workflow.live_version_no ?? 0) + 1,
  commit_message: null,
  updated_at: workflow.updated_at,
  updated_by: workflow.updated_by ?? null,
  active_at: null,
});

export const liveView = (workflow: WorkflowRow, version: WorkflowVersionRecord): WorkflowView => ({
  slug: workflow.slug,
  is_enabled: workflow.is_enabled,
  created_at: workflow.created_at,
  last_executed_at: workflow.last_executed_at,
  content: contentOf(version),
  status: workflow.is_enabled ? 'active' : 'inactive',
  version_no: version.version_no,
  commit_message: version.commit_message,
  updated_at: version.committed_at,
  updated_by: version.committed_by ?? null,
  active_at: version.committed_at,
});

/** The API record, validated against the live categories (`known`) as they are now. */
export const presentWorkflowView = (view: WorkflowView, known: ReadonlySet<string>) =>
  presentWorkflow(view, validationResult(workflowErrors(view.content, known)));
