import { applyOperations, applyUpsert, OPERATION_KEYS, type EntityState } from '../../domain/entity-operations.js';
import { evaluateJsonnet } from '../../domain/jsonnet.js';
import { HttpError } from '../../errors.js';
import { changeUsers } from '../../services/users.js';
import { actorNamespace, loadRecipient, recipientNamespace } from '../run-context.js';
import type { RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';
import { isObject } from '../../domain/values.js';

/**
 * `userupdate`: changes the stored profile of the recipient or the actor (`user_selection`) with
 * the object its `properties` JSONNET evaluates to, through the users API's own code, in the run
 * step's transaction. The object's operation keys (`$set`, `$set_once`, `$add`, `$increment`,
 * `$append`, `$remove`, `$unset`) are applied as the edit API applies them; its other keys as the
 * upsert body applies them (channels `$email` … are added, properties set). Later steps read the
 * updated `$recipient` / `$actor`. (ours) An update the users API would refuse (a bad `$timezone`,
 * `$add` on a text) fails the run: retrying cannot help. A path that names nothing updates nothing.
 */

function targetOf(context: RunContext, selection: 'actor' | 'recipient'): string | null {
  if (selection === 'actor') {
    const actor = context.run.actor as { kind?: string; distinctId?: string } | null;
    return actor?.kind === 'user' && actor.distinctId ? actor.distinctId : null;
  }
  return context.recipient.type === 'user' ? context.recipient.distinct_id : null;
}

/** Operation keys in their order as one edit; every other key as an upsert body, applied first. */
export function profileChange(update: Record<string, unknown>) {
  const operations = Object.fromEntries(
    Object.entries(update).filter(([key]) => (OPERATION_KEYS as readonly string[]).includes(key)),
  );
  const flat = Object.fromEntries(
    Object.entries(update).filter(([key]) => !(OPERATION_KEYS as readonly string[]).includes(key)),
  );
  return (state: EntityState) => {
    const upserted = Object.keys(flat).length > 0 ? applyUpsert(state, flat, 'properties') : state;
    return Object.keys(operations).length > 0 ? applyOperations(upserted, [operations], 'properties') : upserted;
  };
}

export const userupdate: NodeHandlerOf<'userupdate'> = async (context, config) => {
  const { trx, run, namespaces } = context;
  const distinctId = targetOf(context, config.user_selection);
  const raw = config.properties;
  const update = typeof raw === 'string' ? evaluateJsonnet(raw, namespaces) : raw;
  if (distinctId === null || update === undefined || update === null) return { kind: 'next' };
  if (!isObject(update)) return { kind: 'stop', status: 'failed', error: 'properties is not an object' };
  try {
    await changeUsers(trx, run.workspace_id, [{ distinctId, apply: profileChange(update) }], { create: true });
  } catch (error) {
    if (error instanceof HttpError && error.status < 500)
      return { kind: 'stop', status: 'failed', error: error.message };
    throw error;
  }
  if (config.user_selection === 'actor') namespaces.$actor = await actorNamespace(trx, run);
  if (context.recipient.type === 'user' && context.recipient.distinct_id === distinctId) {
    Object.assign(context.recipient, await loadRecipient(trx, run));
    namespaces.$recipient = recipientNamespace(context.recipient);
  }
  return { kind: 'next' };
};
