import type { OutboundPolicy } from '../../channels/outbound.js';
import type { Trx } from '../../db/database.js';
import type { Namespaces } from '../../domain/paths.js';
import type { Position } from '../../domain/workflow-tree.js';
import type { PreferenceState } from '../../domain/preference-evaluation.js';
import type { StepNote } from '../../domain/run-steps.js';
import type { RootCategories } from '../../schemas/preference-categories.js';
import type { NodeConfig, NodeType } from '../../schemas/workflow-nodes.js';
import type { LockedRun } from '../../repositories/runs.js';
import type { NewMessage } from '../../repositories/messages.js';
import type { Queue } from '../queue.js';

/** What a node sees of its run: the locked run, its recipient, the namespaces conditions read. */
export interface RunContext {
  trx: Trx;
  queue: Queue;
  run: LockedRun;
  node: Record<string, unknown> & { node_type: string };
  nodeRef: string;
  position: Position;
  tree: unknown;
  namespaces: Namespaces;
  recipient: RunRecipient;
  now: number;
  /** Loaded once per run step, when a delivery node first needs them. */
  deliveryFacts(): Promise<DeliveryFacts>;
  /** Records a delivery step's messages (one per channel) and starts their delivery (src/engine/run-scope.ts). */
  writeMessages(messages: NewMessage[]): Promise<RecordedMessage[]>;
  /** Timeout of an httpapi_webhook call. */
  httpTimeoutMs: number;
  /** Where the HTTP nodes may call (src/channels/outbound.ts). */
  outbound: OutboundPolicy;
}

/** A message a step recorded, with the status it was recorded with (an inbox message is already `delivered`). */
export interface RecordedMessage {
  id: string;
  channel: string;
  status: string;
}

export interface RunRecipient {
  type: 'user' | 'object';
  distinct_id: string | null;
  object_type: string | null;
  object_id: string | null;
  userId: number | null;
  properties: Record<string, unknown>;
  channels: Record<string, unknown[]>;
}

export interface DeliveryFacts {
  roots: RootCategories;
  preferences: PreferenceState;
  blockedChannels: string[];
  /** Channels with an active vendor, and the vendor chosen for each. */
  vendors: Map<string, { id: string; provider: string; nickname: string | null }>;
}

/**
 * What a node did. `step` is what the run's trace records for it (docs/runs.md); without it the runner
 * records `done` (next, jump), `waiting_until` (wait), `skipped` or `failed` (stop).
 */
export type NodeResult = (
  | /** Continue with the next node. */ { kind: 'next' }
    /** Continue at this position (null: the run is over). */
  | { kind: 'jump'; position: Position | null }
  /** Continue with the next node at this time; `again`: come back to this node then. */
  | { kind: 'wait'; until: Date; again?: boolean }
  /** The run ends here with this status (a trigger absorbed into another run's batch); `error` when it failed. */
  | { kind: 'stop'; status: string; error?: string }
  /** Work outside the transaction (an HTTP call); what it returns is merged into the run's data. */
  | { kind: 'call'; perform: () => Promise<Record<string, unknown>> }
) & { step?: StepNote };

export type NodeHandler = (context: RunContext) => Promise<NodeResult>;

/**
 * The handler of a node type, given the node's config as the type's schema has it
 * (src/schemas/workflow-nodes.ts): a read of a field the schema does not name does not compile.
 */
export type NodeHandlerOf<T extends NodeType> = (context: RunContext, config: NodeConfig<T>) => Promise<NodeResult>;
