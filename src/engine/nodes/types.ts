import type { NodeResult, RunContext } from '../types.js';

/** A node type's handler (engine/nodes/index.ts maps each node type to one). */
export type NodeHandler = (context: RunContext) => Promise<NodeResult>;
