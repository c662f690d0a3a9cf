import { conditionsHold } from '../../domain/expressions.js';
import { enterBranch, nextPosition } from '../../domain/workflow-tree.js';
import type { NodeHandlerOf } from './types.js';

/** What the trace names a branch by: its `name`, else its index (docs/runs.md). */
export const branchTaken = (branches: unknown[], index: number) => {
  const chosen = branches[index] as { name?: unknown } | undefined;
  return { branch: typeof chosen?.name === 'string' ? chosen.name : String(index), index };
};

/** `branch`: the first branch whose conditions hold, else the default one, else none; then on after the branch. */
export const branch: NodeHandlerOf<'branch'> = async (context, config) => {
  // Each branch is an object: the tree walk of the commit checked them (src/domain/workflow-tree.ts).
  const branches = config.branches as Record<string, unknown>[];
  let chosen = branches.findIndex(
    (b) =>
      b.is_default !== true &&
      Array.isArray(b.conditions) &&
      b.conditions.length > 0 &&
      conditionsHold(b.conditions, context.namespaces),
  );
  if (chosen < 0) chosen = branches.findIndex((b) => b.is_default === true);
  if (chosen < 0)
    return {
      kind: 'jump',
      position: nextPosition(context.tree, context.position),
      step: { outcome: 'branch_taken', detail: { branch: null, index: null } },
    };
  return {
    kind: 'jump',
    position: enterBranch(context.tree, context.position, chosen),
    step: { outcome: 'branch_taken', detail: branchTaken(branches, chosen) },
  };
};
