import type { NodeConfig, NodeType } from '../../schemas/workflow-nodes.js';
import type { NodeResult, RunContext } from '../types.js';

/** A node type's handler (engine/nodes/index.ts maps each node type to one). */
export type NodeHandler = (context: RunContext) => Promise<NodeResult>;

/**
 * The handler of a node type, given the node's config as the type's schema has it
 * (src/schemas/workflow-nodes.ts): a read of a field the schema does not name does not compile.
 */
export type NodeHandlerOf<T extends NodeType> = (context: RunContext, config: NodeConfig<T>) => Promise<NodeResult>;
