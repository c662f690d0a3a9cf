import { evaluateJsonnet } from '../../domain/jsonnet.js';
import { readExpression, type Namespaces } from '../../domain/paths.js';
import { addSubscriptions, removeSubscriptions } from '../../services/subscriptions.js';
import { createAndLockObject, findObject } from '../../repositories/objects.js';
import type { NodeConfig } from '../../schemas/workflow-nodes.js';
import type { RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `objectoperation_addsubscription` / `_removesubscription`: subscribes (or unsubscribes) the run's
 * recipient and/or actor (`user_selection`) to the object `object_type`/`object_id`, through the
 * same code as the objects API, in the run step's transaction. With `is_object_id_dynamic` the two
 * are templates whose `{{path}}` parts are read from the run (`{{project}}`, `{{$recipient.team}}`).
 * `subscription_properties` is the trivial JSONNET (src/domain/jsonnet.ts) giving an object. (ours) A missing object that the node may
 * not create leaves nothing to do, and the run goes on.
 */

export function fillTemplate(text: string, namespaces: Namespaces): string {
  return text.replace(/\{\{\s*([^}]+?)\s*\}\}/g, (_match, path: string) => {
    const expr = path.startsWith('$') || path.startsWith('.') ? path : `.${path}`;
    const value = readExpression(namespaces, expr);
    return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The distinct_ids the node acts on, in the objects API's recipient form. */
export function selectedUsers(context: RunContext, wanted: readonly ('actor' | 'recipient')[]): string[] {
  const ids = new Set<string>();
  if (wanted.includes('recipient') && context.recipient.distinct_id !== null) ids.add(context.recipient.distinct_id);
  const actor = context.run.actor as { kind?: string; distinctId?: string } | null;
  if (wanted.includes('actor') && actor?.kind === 'user' && actor.distinctId) ids.add(actor.distinctId);
  return [...ids];
}

function objectRef(context: RunContext, config: NodeConfig<'objectoperation_removesubscription'>) {
  const read = (raw: string) => (config.is_object_id_dynamic === true ? fillTemplate(raw, context.namespaces) : raw);
  return { objectType: read(config.object_type), objectId: read(config.object_id) };
}

function subscriptionProperties(raw: unknown, namespaces: Namespaces): Record<string, unknown> {
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== 'string' || raw.trim() === '') return {};
  const value = evaluateJsonnet(raw, namespaces);
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export const objectAddSubscription: NodeHandlerOf<'objectoperation_addsubscription'> = async (context, config) => {
  const { trx, run } = context;
  const ref = objectRef(context, config);
  const users = selectedUsers(context, config.user_selection);
  if (!ref.objectType || !ref.objectId || users.length === 0) return { kind: 'next' };
  if (config.create_object_if_missing === true) await createAndLockObject(trx, run.workspace_id, ref);
  else if (!(await findObject(trx, run.workspace_id, ref))) return { kind: 'next' };
  await addSubscriptions(
    trx,
    run.workspace_id,
    ref,
    users,
    subscriptionProperties(config.subscription_properties, context.namespaces),
  );
  return { kind: 'next' };
};

export const objectRemoveSubscription: NodeHandlerOf<'objectoperation_removesubscription'> = async (
  context,
  config,
) => {
  const { trx, run } = context;
  const ref = objectRef(context, config);
  const users = selectedUsers(context, config.user_selection);
  if (!ref.objectType || !ref.objectId || users.length === 0) return { kind: 'next' };
  if (!(await findObject(trx, run.workspace_id, ref))) return { kind: 'next' };
  await removeSubscriptions(trx, run.workspace_id, ref, users);
  return { kind: 'next' };
};
