import type { Trx } from '../db/database.js';
import { notFound } from '../errors.js';
import { createAndLockUsers } from '../repositories/users.js';
import {
  deleteVersion,
  findVersion,
  insertVersion,
  lockList,
  type LockedList,
} from '../repositories/subscriber-lists.js';
import { addMembers, removeMembers, replaceLiveMembers, type ListEvent } from '../repositories/list-members.js';
import { newUlid } from '../ids.js';

export const listNotFound = (listId: string) => notFound(`list_id: ${listId} not found`);
export const versionNotFound = (listId: string, versionId: string) =>
  notFound(`version_id ${versionId} not found for list_id ${listId}`);

/** The event names the hosted platform gives list entry and exit; the engine starts workflows from them. */
export const listEntryEvent = (listId: string) => `$USER_ENTERED_LIST - ${listId}`;
export const listExitEvent = (listId: string) => `$USER_EXITED_LIST - ${listId}`;

const entryOf = (list: LockedList): ListEvent =>
  list.track_user_entry ? { event: listEntryEvent(list.list_id), listId: list.list_id } : null;
const exitOf = (list: LockedList): ListEvent =>
  list.track_user_exit ? { event: listExitEvent(list.list_id), listId: list.list_id } : null;

async function lockedList(trx: Trx, workspaceId: number, listId: string) {
  const list = await lockList(trx, workspaceId, listId);
  if (!list) throw listNotFound(listId);
  return list;
}

async function lockedVersion(trx: Trx, workspaceId: number, listId: string, versionId: string) {
  const list = await lockedList(trx, workspaceId, listId);
  const version = await findVersion(trx, list.id, versionId);
  if (!version) throw versionNotFound(listId, versionId);
  return { list, version };
}

/**
 * Adds users to the live list or to a draft version, creating users that do not exist yet (ours,
 * as subscriptions do). Users are locked before the list, in the order every user path locks them.
 * Entry events are recorded for the live list only: a draft's members enter at finish_sync.
 * Four statements whatever the number of users.
 */
export async function addListMembers(
  trx: Trx,
  workspaceId: number,
  target: { listId: string; versionId?: string },
  distinctIds: string[],
): Promise<number> {
  if (distinctIds.length === 0) {
    // Still a 404 for an unknown list or version.
    await (target.versionId === undefined
      ? lockedList(trx, workspaceId, target.listId)
      : lockedVersion(trx, workspaceId, target.listId, target.versionId));
    return 0;
  }
  const users = await createAndLockUsers(trx, workspaceId, distinctIds);
  const userIds = users.map((user) => user.id);
  if (target.versionId === undefined) {
    const list = await lockedList(trx, workspaceId, target.listId);
    return addMembers(trx, { workspaceId, listPk: list.id, versionPk: null }, userIds, entryOf(list));
  }
  const { list, version } = await lockedVersion(trx, workspaceId, target.listId, target.versionId);
  return addMembers(trx, { workspaceId, listPk: list.id, versionPk: version.id }, userIds, null);
}

/** Removes users from the live list (exit events where tracked) or from a draft version. Unknown users are skipped. */
export async function removeListMembers(
  trx: Trx,
  workspaceId: number,
  target: { listId: string; versionId?: string },
  distinctIds: string[],
): Promise<number> {
  if (target.versionId === undefined) {
    const list = await lockedList(trx, workspaceId, target.listId);
    return removeMembers(trx, { workspaceId, listPk: list.id, versionPk: null }, distinctIds, exitOf(list));
  }
  const { list, version } = await lockedVersion(trx, workspaceId, target.listId, target.versionId);
  return removeMembers(trx, { workspaceId, listPk: list.id, versionPk: version.id }, distinctIds, null);
}

/** start_sync: a new, empty draft version of the list. */
export async function startListSync(trx: Trx, workspaceId: number, listId: string) {
  const list = await lockedList(trx, workspaceId, listId);
  return insertVersion(trx, workspaceId, list.id, newUlid());
}

/** finish_sync: the draft's members replace the live ones atomically, then the draft is gone. */
export async function finishListSync(trx: Trx, workspaceId: number, listId: string, versionId: string) {
  const { list, version } = await lockedVersion(trx, workspaceId, listId, versionId);
  await replaceLiveMembers(trx, workspaceId, list.id, version.id, { entry: entryOf(list), exit: exitOf(list) });
  await deleteVersion(trx, version.id);
}

/** Drops a draft version without touching the live list. */
export async function deleteListVersion(trx: Trx, workspaceId: number, listId: string, versionId: string) {
  const { version } = await lockedVersion(trx, workspaceId, listId, versionId);
  await deleteVersion(trx, version.id);
}

// Reads the routes make as they are (no rule of their own).
