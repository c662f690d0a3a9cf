import type { ActorColumn } from '../db/types.js';
import { contentOf, workflowErrors, type WorkflowReferences } from '../domain/workflow-rules.js';
import type { WorkflowVersionRecord } from '../repositories/workflow-versions.js';
import type { ShownWorkflow, WorkflowRow } from '../repositories/workflows.js';
import { iso, isoOrNull } from '../schemas/common.js';
import { validationResult, type ValidationResult } from '../schemas/versioning.js';
import type { WorkflowContent } from '../schemas/workflows.js';

/** A workflow seen in draft mode (its row) or live mode (its row's flags + its live version). */

/** Dates may arrive as strings when a row was read through to_json. */
type DateValue = Date | string;

export interface WorkflowView {
  slug: string;
  is_enabled: boolean;
  created_at: DateValue;
  last_executed_at: DateValue | null;
  content: WorkflowContent;
  status: 'draft' | 'active' | 'inactive';
  version_no: number;
  commit_message: string | null;
  updated_at: DateValue;
  updated_by: ActorColumn | null;
  active_at: DateValue | null;
}

export function presentWorkflow(view: WorkflowView, validation: ValidationResult) {
  return {
    slug: view.slug,
    ...view.content,
    is_enabled: view.is_enabled,
    status: view.status,
    version_no: view.version_no,
    commit_message: view.commit_message,
    created_at: iso(view.created_at),
    updated_at: iso(view.updated_at),
    updated_by: view.updated_by,
    active_at: isoOrNull(view.active_at),
    last_executed_at: isoOrNull(view.last_executed_at),
    validation_result: validation,
  };
}

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

/** The API record, validated against what it names (live categories, templates) as they are now. */
export const presentWorkflowView = (view: WorkflowView, known: WorkflowReferences) =>
  presentWorkflow(view, validationResult(workflowErrors(view.content, known)));

/** A workflow as the services return it: its row, and the version it is shown as when shown live. */
/** Workflow, validated against what it names (live categories, templates) as they are now. */
export const presentShownWorkflow = ({ workflow, live }: ShownWorkflow, known: WorkflowReferences) =>
  presentWorkflowView(live ? liveView(workflow, live) : draftView(workflow), known);
