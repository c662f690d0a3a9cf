import { isDeepStrictEqual } from 'node:util';
import { treeRunErrors } from './workflow-tree.js';
import type { WorkflowContent } from '../schemas/workflows.js';

/** What makes a workflow draft committable; each rule returns human-readable error strings. */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function treeErrors(tree: unknown): string[] {
  if (!isObject(tree) || !Array.isArray(tree.nodes)) return ['tree must be an object with a nodes array'];
  return tree.nodes.flatMap((node, index) =>
    isObject(node) && typeof node.node_type === 'string' && node.node_type.length > 0
      ? []
      : [`tree.nodes[${index}] must be an object with a node_type string`],
  );
}

/** `known`: the root and sub categories of the live preference categories. */
export function categoryErrors(category: string, known: ReadonlySet<string>): string[] {
  return known.has(category) ? [] : [`category '${category}' does not exist in the live preference categories`];
}

export function triggerErrors(content: Pick<WorkflowContent, 'trigger_type' | 'trigger_events'>): string[] {
  return content.trigger_type === 'event' && content.trigger_events.length === 0
    ? ["trigger_events must name at least one event when trigger_type is 'event'"]
    : [];
}

export function workflowErrors(content: WorkflowContent, knownCategories: ReadonlySet<string>): string[] {
  return [
    ...categoryErrors(content.category, knownCategories),
    ...triggerErrors(content),
    ...treeErrors(content.tree),
    ...treeRunErrors(content.tree),
  ];
}

export const contentOf = (source: WorkflowContent): WorkflowContent => ({
  name: source.name,
  description: source.description,
  category: source.category,
  trigger_type: source.trigger_type,
  trigger_events: source.trigger_events,
  tags: source.tags,
  tree: source.tree,
  payload_schema: source.payload_schema ?? null,
});

/** Whether committing the draft would change what is live. */
export const hasChanges = (draft: WorkflowContent, live: WorkflowContent | undefined) =>
  !live || !isDeepStrictEqual(contentOf(draft), contentOf(live));
