import { isDeepStrictEqual } from 'node:util';
import { templateNodes, treeRunErrors } from './workflow-tree.js';
import type { WorkflowContent } from '../schemas/workflows.js';
import { isObject } from './values.js';

/** What makes a workflow draft committable; each rule returns human-readable error strings. */

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

/**
 * What a workflow names elsewhere in its workspace, as it is now: the live categories (root and sub
 * category slugs), and the templates its delivery nodes name, each with whether it has a committed version.
 */
export interface WorkflowReferences {
  categories: ReadonlySet<string>;
  templates: ReadonlyMap<string, boolean>;
}

/** The template slugs these workflows' delivery nodes name: what `WorkflowReferences.templates` is read for. */
export const namedTemplates = (contents: Pick<WorkflowContent, 'tree'>[]) => [
  ...new Set(contents.flatMap((content) => templateNodes(content.tree).map((node) => node.template))),
];

/**
 * A delivery node must name a template with a committed version: otherwise every message it records
 * would fail `render_failed` (issue #32). Each message names the node.
 */
export function templateErrors(tree: unknown, templates: ReadonlyMap<string, boolean>): string[] {
  return templateNodes(tree).flatMap(({ at, type, template }) => {
    const live = templates.get(template);
    if (live === undefined) return [`${at} (${type}): template '${template}' does not exist`];
    return live ? [] : [`${at} (${type}): template '${template}' has no committed version (commit it first)`];
  });
}

export function workflowErrors(content: WorkflowContent, references: WorkflowReferences): string[] {
  return [
    ...categoryErrors(content.category, references.categories),
    ...triggerErrors(content),
    ...treeErrors(content.tree),
    ...treeRunErrors(content.tree),
    ...templateErrors(content.tree, references.templates),
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

const isEmptyList = (value: unknown) => Array.isArray(value) && value.length === 0;

/** The workflow-level settings the hosted platform's OpenAPI places beside the tree, which live in it here. */
const TREE_SETTINGS = ['ratelimit', 'conditions'] as const;

/**
 * The tree to store for a workflow body: its top-level `ratelimit` and `conditions` (null, absent or
 * an empty list: not given) moved into the tree, where the engine reads them. Given in both places with different
 * values, the errors name the field; the tree alone keeps its own.
 */
export function treeWithSettings(
  tree: unknown,
  settings: Partial<Record<(typeof TREE_SETTINGS)[number], unknown>>,
): { tree: unknown; errors: Record<string, string> } {
  // An empty conditions list says nothing (no condition to hold), as null does.
  const given = TREE_SETTINGS.filter(
    (key) => settings[key] !== undefined && settings[key] !== null && !isEmptyList(settings[key]),
  );
  if (given.length === 0 || !isObject(tree)) return { tree, errors: {} };
  const errors: Record<string, string> = {};
  const merged: Record<string, unknown> = { ...tree };
  for (const key of given) {
    if (tree[key] !== undefined && tree[key] !== null && !isDeepStrictEqual(tree[key], settings[key]))
      errors[key] = `is also given as tree.${key}, with another value: give it in one place`;
    merged[key] = settings[key];
  }
  return { tree: merged, errors };
}
