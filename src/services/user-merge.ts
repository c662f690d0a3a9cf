import type { Trx } from '../db/database.js';
import { mergeUserStates } from '../domain/user-merge.js';
import type { Channels } from '../domain/channels.js';
import { badRequest, notFound, notFoundErrors } from '../errors.js';
import { deleteUserById, moveUserBelongings, moveUserMessages } from '../repositories/user-merge.js';
import { lockUsers, saveUserStates, type UserRow } from '../repositories/users.js';

/**
 * Merges user `fromDistinctId` into `distinctId` in the caller's transaction: profile (see
 * mergeUserStates), subscriptions, list memberships, preferences, messages (and so the inbox feed)
 * and runs still to come move to the primary user, then the secondary user is deleted. Both users are
 * locked first, in the order every user path locks them. Nine statements.
 */
export async function mergeUsers(
  trx: Trx,
  workspaceId: number,
  distinctId: string,
  fromDistinctId: string,
): Promise<UserRow> {
  if (distinctId === fromDistinctId)
    throw badRequest('from_user_id: cannot merge a user into itself', { from_user_id: 'is the same user' });
  const rows = await lockUsers(trx, workspaceId, [distinctId, fromDistinctId]);
  const primary = rows.find((row) => row.distinct_id === distinctId);
  const secondary = rows.find((row) => row.distinct_id === fromDistinctId);
  if (!secondary) throw notFound(`from_user_id: [distinct_id: '${fromDistinctId}'] not found`);
  if (!primary) throw notFoundErrors.user(distinctId);

  const merged = mergeUserStates(
    { properties: primary.properties, channels: primary.channels as Channels },
    { properties: secondary.properties, channels: secondary.channels as Channels },
  );
  await moveUserBelongings(trx, secondary.id, primary.id);
  await moveUserMessages(trx, workspaceId, fromDistinctId, distinctId);
  await deleteUserById(trx, secondary.id);
  const [saved] = await saveUserStates(trx, [
    { id: primary.id, fresh: false, properties: merged.properties, channels: merged.channels },
  ]);
  return saved!;
}
