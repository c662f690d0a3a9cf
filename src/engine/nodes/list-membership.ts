import { LIST_ID_PATTERN } from '../../schemas/identifiers.js';
import { addListMembers, removeListMembers } from '../../services/subscriber-lists.js';
import { fillTemplate, selectedUsers } from './object-subscription.js';
import type { RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';
import type { NodeConfig } from '../../schemas/workflow-nodes.js';
import { findList, upsertList } from '../../repositories/subscriber-lists.js';

/**
 * `subscriberlistoperation_adduser` / `_removeuser`: adds (or removes) the run's recipient and/or
 * actor (`user_selection`) to the subscriber list `list_id`, through the lists API's own code, in
 * the run step's transaction: users are created as the API creates them, entry and exit events are
 * recorded where the list tracks them. With `is_list_id_dynamic`, `{{path}}` parts of `list_id` are
 * read from the run. `create_list_if_missing` (add only) creates the list, named `list_name`.
 * (ours) A missing list that the node may not create leaves nothing to do, and the run goes on.
 */

const LIST_ID = new RegExp(LIST_ID_PATTERN);

/** The list's id, or '' when a dynamic one does not make a valid id (nothing to do then). */
function listIdOf(context: RunContext, config: NodeConfig<'subscriberlistoperation_adduser'>): string {
  const raw = config.list_id;
  const id = config.is_list_id_dynamic === true ? fillTemplate(raw, context.namespaces).trim() : raw;
  return LIST_ID.test(id) ? id : '';
}

export const listAddUser: NodeHandlerOf<'subscriberlistoperation_adduser'> = async (context, config) => {
  const { trx, run } = context;
  const listId = listIdOf(context, config);
  const users = selectedUsers(context, config.user_selection);
  if (listId === '' || users.length === 0) return { kind: 'next' };
  if (!(await findList(trx, run.workspace_id, listId))) {
    if (config.create_list_if_missing !== true) return { kind: 'next' };
    const name = config.list_name;
    await upsertList(trx, run.workspace_id, {
      listId,
      ...(typeof name === 'string' && name ? { listName: name } : {}),
    });
  }
  await addListMembers(trx, run.workspace_id, { listId }, users);
  return { kind: 'next' };
};

export const listRemoveUser: NodeHandlerOf<'subscriberlistoperation_removeuser'> = async (context, config) => {
  const { trx, run } = context;
  const listId = listIdOf(context, config);
  const users = selectedUsers(context, config.user_selection);
  if (listId === '' || users.length === 0) return { kind: 'next' };
  if (!(await findList(trx, run.workspace_id, listId))) return { kind: 'next' };
  await removeListMembers(trx, run.workspace_id, { listId }, users);
  return { kind: 'next' };
};
