import { conditionsErrors } from './expressions.js';
import { nodeConfigErrors, rateLimitErrors } from './flow-node-rules.js';
import {
  isDeliveryNode,
  isNodeType,
  TEMPLATE_SLUG_PATTERN,
  type NodeConfig,
  type NodeType,
} from '../schemas/workflow-nodes.js';
import { isObject } from './values.js';

/**
 * The workflow tree as the engine reads it (docs/spec/engine.md §3): what each node type needs,
 * where a run is (an index path), and what runs next. Pure: no database, no clock.
 */

export type TreeNode = Record<string, unknown> & { node_type: string };
/** `[i]` is `tree.nodes[i]`; `[i, b, j]` is `tree.nodes[i].branches[b].nodes[j]`, and so on. */
export type Position = number[];

/**
 * A node's field: at the node's top level as the OpenAPI places it, or (ours) under `properties`
 * for node types whose schema has no `properties` of their own.
 */
function field(node: Record<string, unknown>, name: string): unknown {
  if (node[name] !== undefined) return node[name];
  return isObject(node.properties) ? node.properties[name] : undefined;
}

/** Every field of a node as `field` reads each: its own, else (ours) those under its `properties`. */
export function nodeFields(node: Record<string, unknown>): Record<string, unknown> {
  if (!isObject(node.properties)) return node;
  const fields: Record<string, unknown> = { ...node.properties };
  for (const [name, value] of Object.entries(node)) if (value !== undefined) fields[name] = value;
  return fields;
}

/**
 * A node's config as its type's schema has it (src/schemas/workflow-nodes.ts). The engine runs only
 * committed trees, and a tree is committed only when every node passed its schema (treeRunErrors):
 * so the run may trust the config's static type without checking it again.
 */
export const nodeConfig = <T extends NodeType = NodeType>(node: TreeNode) => nodeFields(node) as NodeConfig<T>;

export const treeNodes = (tree: unknown): unknown[] => (isObject(tree) && Array.isArray(tree.nodes) ? tree.nodes : []);

function listAt(tree: unknown, position: Position): unknown[] | undefined {
  let list = treeNodes(tree);
  for (let i = 0; i < position.length - 1; i += 2) {
    const node = list[position[i]!];
    if (!isObject(node)) return undefined;
    const branches = field(node, 'branches');
    const branch = Array.isArray(branches) ? branches[position[i + 1]!] : undefined;
    if (!isObject(branch)) return undefined;
    list = Array.isArray(branch.nodes) ? branch.nodes : [];
  }
  return list;
}

export function nodeAt(tree: unknown, position: Position): TreeNode | undefined {
  const node = listAt(tree, position)?.[position[position.length - 1]!];
  return isObject(node) && typeof node.node_type === 'string' ? (node as TreeNode) : undefined;
}

/**
 * The first position at or after `position` that holds a node: past the end of a branch's nodes the
 * run continues after the branch node. Null when the run is over.
 */
export function settle(tree: unknown, position: Position): Position | null {
  let current = position;
  for (;;) {
    if (nodeAt(tree, current)) return current;
    if (current.length === 1) return null;
    const parent = current.slice(0, -2);
    current = [...parent.slice(0, -1), parent[parent.length - 1]! + 1];
  }
}

export const nextPosition = (tree: unknown, position: Position) =>
  settle(tree, [...position.slice(0, -1), position[position.length - 1]! + 1]);

export const enterBranch = (tree: unknown, position: Position, branch: number) =>
  settle(tree, [...position, branch, 0]);

/** `node_ref` of every node: `<node_type>_<n>`, n counting that type depth-first in document order. */
export function nodeRefs(tree: unknown): Map<string, string> {
  const counts = new Map<string, number>();
  const refs = new Map<string, string>();
  const walk = (nodes: unknown[], prefix: Position) => {
    nodes.forEach((node, index) => {
      if (!isObject(node) || typeof node.node_type !== 'string') return;
      const n = (counts.get(node.node_type) ?? 0) + 1;
      counts.set(node.node_type, n);
      const position = [...prefix, index];
      refs.set(position.join('.'), `${node.node_type}_${n}`);
      const branches = field(node, 'branches');
      if ((node.node_type === 'branch' || node.node_type === 'branch_waituntil') && Array.isArray(branches))
        branches.forEach((branch, b) => {
          if (isObject(branch) && Array.isArray(branch.nodes)) walk(branch.nodes, [...position, b]);
        });
    });
  };
  walk(treeNodes(tree), []);
  return refs;
}

/** Every delivery node naming a template, with its path as the commit errors name it (`tree.nodes[1].branches[0].nodes[0]`). */
export function templateNodes(tree: unknown): { at: string; type: string; template: string }[] {
  const found: { at: string; type: string; template: string }[] = [];
  const walk = (nodes: unknown[], at: string) =>
    nodes.forEach((node, index) => {
      if (!isObject(node) || typeof node.node_type !== 'string') return;
      const here = `${at}[${index}]`;
      const template = field(node, 'template');
      // A malformed slug is the slug rule's to report (nodeErrors), not a template to look up.
      if (isDeliveryNode(node.node_type) && typeof template === 'string' && TEMPLATE_SLUG.test(template))
        found.push({ at: here, type: node.node_type, template });
      const branches = field(node, 'branches');
      if (Array.isArray(branches))
        branches.forEach((branch, b) => {
          if (isObject(branch) && Array.isArray(branch.nodes)) walk(branch.nodes, `${here}.branches[${b}].nodes`);
        });
    });
  walk(treeNodes(tree), 'tree.nodes');
  return found;
}

const TEMPLATE_SLUG = new RegExp(TEMPLATE_SLUG_PATTERN);

/** A branch node's branches: their conditions and, nested, their nodes (`at` is the node's path). */
function branchErrors(node: Record<string, unknown>, at: string): string[] {
  const branches = node.branches;
  // A list of the wrong length is the schema's to report; its branches are not walked.
  if (!Array.isArray(branches) || branches.length < 2 || branches.length > 10) return [];
  return branches.flatMap((branch, b) => {
    const bAt = `${at}.branches[${b}]`;
    if (!isObject(branch)) return [`${bAt} must be an object`];
    return [
      ...(branch.is_default !== true ? conditionsErrors(branch.conditions, `${bAt}.conditions`) : []),
      ...(branch.nodes !== undefined && !Array.isArray(branch.nodes)
        ? [`${bAt}.nodes must be an array`]
        : listErrors(branch.nodes ?? [], `${bAt}.nodes`)),
    ];
  });
}

/** The nodes nested in a branch_waituntil's branches (the branches themselves are its rule's). */
const waitBranchErrors = (node: Record<string, unknown>, at: string) =>
  Array.isArray(node.branches)
    ? node.branches.flatMap((branch, b) =>
        isObject(branch) && Array.isArray(branch.nodes) ? listErrors(branch.nodes, `${at}.branches[${b}].nodes`) : [],
      )
    : [];

function nodeErrors(node: Record<string, unknown>, at: string): string[] {
  const type = node.node_type as string;
  const here = `${at} (${type})`;
  if (!isNodeType(type)) return [`${here}: node type '${type}' is not supported by this engine`];
  const fields = nodeFields(node);
  return [
    ...nodeConfigErrors(type, here, fields),
    ...(type === 'branch' ? branchErrors(fields, at) : []),
    ...(type === 'branch_waituntil' ? waitBranchErrors(fields, at) : []),
  ];
}

function listErrors(nodes: unknown[], at: string): string[] {
  return nodes.flatMap((node, index) =>
    isObject(node) && typeof node.node_type === 'string' && node.node_type.length > 0
      ? nodeErrors(node, `${at}[${index}]`)
      : [],
  );
}

/**
 * Why the engine could not run this tree, each message naming the node's path. Nodes without a
 * node_type are left to the structural rule that already reports them.
 */
export function treeRunErrors(tree: unknown): string[] {
  if (!isObject(tree) || !Array.isArray(tree.nodes)) return [];
  return [
    ...conditionsErrors(tree.conditions, 'tree.conditions'),
    ...rateLimitErrors(tree),
    ...listErrors(tree.nodes, 'tree.nodes'),
  ];
}
