import type { Db, Trx } from '../db/database.js';
import { fieldError } from '../errors.js';
import { readRecipients, type Recipient } from '../domain/recipients.js';
import { findObject, findObjects, lockObject, type ObjectRef, type ObjectRow } from '../repositories/objects.js';
import {
  deleteSubscriptions,
  lockObjectGraph,
  selfAndAncestors,
  listSubscribedTo as listSubscribedToRows,
  listSubscribers as listSubscriberRows,
  upsertSubscriptions,
} from '../repositories/subscriptions.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import type { AddedSubscription } from '../repositories/subscriptions.js';
import type { CursorQuery } from '../schemas/cursor.js';
import { objectLabel } from '../domain/objects.js';
import { getObject, objectNotFound } from './objects.js';
import { applyUpsert } from '../domain/entity-operations.js';
import { changeUsers, getUser } from './users.js';

/** Child objects must exist and must not be the parent or any object the parent is (transitively) subscribed to. */
function checkChildren(
  parent: ObjectRow,
  ancestors: Set<number>,
  children: Extract<Recipient, { kind: 'object' }>[],
  found: Map<string, ObjectRow>,
) {
  const parentLabel = objectLabel({ objectType: parent.object_type, objectId: parent.object_id });
  for (const child of children) {
    const label = objectLabel(child.ref);
    const row = found.get(label);
    if (!row) throw fieldError(child.at, `object '${label}' not found`);
    if (row.id === parent.id) throw fieldError(child.at, `object '${label}' cannot subscribe to itself`);
    if (ancestors.has(row.id)) {
      throw fieldError(
        child.at,
        `'${label}' cannot subscribe to '${parentLabel}': '${parentLabel}' is already subscribed to '${label}' (directly or through other objects), so this would make a cycle`,
      );
    }
  }
}

/**
 * docs/spec/interface.md §2, inside the caller's transaction, in a fixed number of statements whatever the
 * number of recipients: create/lock/update the users; with child objects, take the workspace's
 * graph lock and share-lock the children; lock the parent; check for cycles (one ancestry query);
 * upsert all subscriptions; read the parent's count back. Rows are locked in the order a deletion
 * locks them (subscriber first, then parent), so adds and deletes never deadlock each other.
 * Results follow the recipients' order (a repeated recipient repeats its subscription).
 */
export async function addSubscriptions(
  trx: Trx,
  workspaceId: number,
  parentRef: ObjectRef,
  input: unknown[],
  properties: Record<string, unknown>,
): Promise<AddedSubscription[]> {
  const recipients = readRecipients(input);
  const userRecipients = recipients.filter((r): r is Extract<Recipient, { kind: 'user' }> => r.kind === 'user');
  const users = await changeUsers(
    trx,
    workspaceId,
    userRecipients.map((r) => ({
      distinctId: r.distinctId,
      apply: r.inline ? (s) => applyUpsert(s, r.inline!, r.at) : (s) => s,
    })),
    { create: true },
  );
  const children = recipients.filter((r): r is Extract<Recipient, { kind: 'object' }> => r.kind === 'object');
  let childRows = new Map<string, ObjectRow>();
  if (children.length > 0) {
    await lockObjectGraph(trx, workspaceId);
    const rows = await findObjects(
      trx,
      workspaceId,
      children.map((child) => child.ref),
    );
    childRows = new Map(
      rows.map((row) => [objectLabel({ objectType: row.object_type, objectId: row.object_id }), row]),
    );
  }
  const parent = await lockObject(trx, workspaceId, parentRef);
  if (!parent) throw objectNotFound(parentRef);
  if (children.length > 0) checkChildren(parent, await selfAndAncestors(trx, parent.id), children, childRows);

  const subscribers = new Map<string, { user_id: number | null; child_object_id: number | null }>();
  for (const user of users.values()) subscribers.set(`u${user.id}`, { user_id: user.id, child_object_id: null });
  for (const child of childRows.values()) subscribers.set(`o${child.id}`, { user_id: null, child_object_id: child.id });
  const rows = await upsertSubscriptions(trx, parent.id, [...subscribers.values()], properties);
  const byKey = new Map(rows.map((row) => [row.user_id !== null ? `u${row.user_id}` : `o${row.child_object_id}`, row]));
  const object = (await findObject(trx, workspaceId, parentRef))!;

  return recipients.map((recipient) => {
    const user = recipient.kind === 'user' ? users.get(recipient.distinctId)! : null;
    const child = recipient.kind === 'object' ? childRows.get(objectLabel(recipient.ref))! : null;
    const subscription = byKey.get(user ? `u${user.id}` : `o${child!.id}`)!;
    return { subscription, user, object, child };
  });
}

/** Removes subscriptions of the named users and child objects; recipients not subscribed are skipped. */
export async function removeSubscriptions(trx: Trx, workspaceId: number, parentRef: ObjectRef, input: unknown[]) {
  const recipients = readRecipients(input);
  const parent = await lockObject(trx, workspaceId, parentRef);
  if (!parent) throw objectNotFound(parentRef);
  const distinctIds = recipients.flatMap((r) => (r.kind === 'user' ? [r.distinctId] : []));
  const refs = recipients.flatMap((r) => (r.kind === 'object' ? [r.ref] : []));
  return deleteSubscriptions(trx, workspaceId, parent.id, distinctIds, refs);
}

/** An object's subscribers, oldest subscription first (404 for an unknown object). */
export async function listSubscribers(db: Db, workspaceId: number, parentRef: ObjectRef, query: CursorQuery) {
  const parent = await getObject(db, workspaceId, parentRef);
  return { parent, page: await listSubscriberRows(db, parent.id, cursorWindow(query)) };
}

/** The objects a user is subscribed to (404 for an unknown user). */
export async function listUserSubscribedTo(db: Db, workspaceId: number, distinctId: string, query: CursorQuery) {
  const user = await getUser(db, workspaceId, distinctId);
  return listSubscribedToRows(db, { userId: user.id }, cursorWindow(query));
}

/** The objects an object is subscribed to (404 for an unknown object). */
export async function listObjectSubscribedTo(db: Db, workspaceId: number, ref: ObjectRef, query: CursorQuery) {
  const object = await getObject(db, workspaceId, ref);
  return listSubscribedToRows(db, { objectId: object.id }, cursorWindow(query));
}
