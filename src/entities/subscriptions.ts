import type { Db } from '../db/database.js';
import { badRequest } from '../errors.js';
import { findObject, findObjects, lockObject, type ObjectRef, type ObjectRow } from '../repositories/objects.js';
import { deleteSubscriptions, lockObjectGraph, selfAndAncestors, upsertSubscriptions } from '../repositories/subscriptions.js';
import { iso } from '../schemas/common.js';
import { objectLabel, summarizeObject } from '../schemas/objects.js';
import { objectNotFound } from './object-edits.js';
import { applyUpsert } from './operations.js';
import { changeUsers } from './user-edits.js';

/** A recipient of add/remove subscription, read from the request. */
export type Recipient =
  | { kind: 'user'; at: string; distinctId: string; inline: Record<string, unknown> | null }
  | { kind: 'object'; at: string; ref: ObjectRef };

const OBJECT_TYPE = /^[a-z0-9_-]{1,64}$/;
const isIdentifier = (value: unknown): value is string => typeof value === 'string' && value.length >= 1 && value.length <= 256 && /\S/.test(value);
const invalid = (at: string, reason: string) => badRequest(`${at}: ${reason}`, { [at]: reason });

/** Reads `recipients`: distinct_id strings, inline users `{distinct_id, …}` and child objects `{object_type, id}`. */
export function readRecipients(recipients: unknown[]): Recipient[] {
  return recipients.map((recipient, index): Recipient => {
    const at = `recipients[${index}]`;
    if (typeof recipient === 'string') {
      if (!isIdentifier(recipient)) throw invalid(at, 'a distinct_id has 1 to 256 characters, not only spaces');
      return { kind: 'user', at, distinctId: recipient, inline: null };
    }
    if (typeof recipient !== 'object' || recipient === null || Array.isArray(recipient)) throw invalid(at, 'must be a distinct_id or an object');
    const { distinct_id, ...inline } = recipient as Record<string, unknown>;
    if (distinct_id !== undefined) {
      if (!isIdentifier(distinct_id)) throw invalid(`${at}.distinct_id`, 'must have 1 to 256 characters, not only spaces');
      return { kind: 'user', at, distinctId: distinct_id, inline };
    }
    const { object_type, id } = inline;
    if (object_type === undefined && id === undefined) throw invalid(at, 'needs distinct_id (a user) or object_type and id (an object)');
    if (typeof object_type !== 'string' || !OBJECT_TYPE.test(object_type)) throw invalid(`${at}.object_type`, 'must be lowercase letters, digits, _ or -, at most 64 characters');
    if (!isIdentifier(id)) throw invalid(`${at}.id`, 'must have 1 to 256 characters, not only spaces');
    return { kind: 'object', at, ref: { objectType: object_type, objectId: id } };
  });
}

/** Child objects must exist and must not be the parent or any object the parent is (transitively) subscribed to. */
function checkChildren(parent: ObjectRow, ancestors: Set<number>, children: Extract<Recipient, { kind: 'object' }>[], found: Map<string, ObjectRow>) {
  const parentLabel = objectLabel({ objectType: parent.object_type, objectId: parent.object_id });
  for (const child of children) {
    const label = objectLabel(child.ref);
    const row = found.get(label);
    if (!row) throw invalid(child.at, `object '${label}' not found`);
    if (row.id === parent.id) throw invalid(child.at, `object '${label}' cannot subscribe to itself`);
    if (ancestors.has(row.id)) {
      throw invalid(child.at, `'${label}' cannot subscribe to '${parentLabel}': '${parentLabel}' is already subscribed to '${label}' (directly or through other objects), so this would make a cycle`);
    }
  }
}

/**
 * interface.md §2, inside the caller's transaction, in a fixed number of statements whatever the
 * number of recipients: create/lock/update the users; with child objects, take the workspace's
 * graph lock and share-lock the children; lock the parent; check for cycles (one ancestry query);
 * upsert all subscriptions; read the parent's count back. Rows are locked in the order a deletion
 * locks them (subscriber first, then parent), so adds and deletes never deadlock each other.
 * Results follow the recipients' order (a repeated recipient repeats its subscription).
 */
export async function addSubscriptions(trx: Db, workspaceId: number, parentRef: ObjectRef, recipients: Recipient[], properties: Record<string, unknown>) {
  const userRecipients = recipients.filter((r): r is Extract<Recipient, { kind: 'user' }> => r.kind === 'user');
  const users = await changeUsers(
    trx,
    workspaceId,
    userRecipients.map((r) => ({ distinctId: r.distinctId, apply: r.inline ? (s) => applyUpsert(s, r.inline!, r.at) : (s) => s })),
    { create: true },
  );
  const children = recipients.filter((r): r is Extract<Recipient, { kind: 'object' }> => r.kind === 'object');
  let childRows = new Map<string, ObjectRow>();
  if (children.length > 0) {
    await lockObjectGraph(trx, workspaceId);
    const rows = await findObjects(trx, workspaceId, children.map((child) => child.ref));
    childRows = new Map(rows.map((row) => [objectLabel({ objectType: row.object_type, objectId: row.object_id }), row]));
  }
  const parent = await lockObject(trx, workspaceId, parentRef);
  if (!parent) throw objectNotFound(parentRef);
  if (children.length > 0) checkChildren(parent, await selfAndAncestors(trx, parent.id), children, childRows);

  const subscribers = new Map<string, { user_id: number | null; child_object_id: number | null }>();
  for (const user of users.values()) subscribers.set(`u${user.id}`, { user_id: user.id, child_object_id: null });
  for (const child of childRows.values()) subscribers.set(`o${child.id}`, { user_id: null, child_object_id: child.id });
  const rows = await upsertSubscriptions(trx, parent.id, [...subscribers.values()], properties);
  const byKey = new Map(rows.map((row) => [row.user_id !== null ? `u${row.user_id}` : `o${row.child_object_id}`, row]));
  const object = summarizeObject((await findObject(trx, workspaceId, parentRef))!);

  return recipients.map((recipient) => {
    const user = recipient.kind === 'user' ? users.get(recipient.distinctId)! : null;
    const child = recipient.kind === 'object' ? childRows.get(objectLabel(recipient.ref))! : null;
    const row = byKey.get(user ? `u${user.id}` : `o${child!.id}`)!;
    return {
      properties: row.properties,
      user: user ? { distinct_id: user.distinct_id, updated_at: iso(user.updated_at) } : null,
      object,
      child_object: child ? summarizeObject(child) : null,
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  });
}

/** Removes subscriptions of the named users and child objects; recipients not subscribed are skipped. */
export async function removeSubscriptions(trx: Db, workspaceId: number, parentRef: ObjectRef, recipients: Recipient[]) {
  const parent = await lockObject(trx, workspaceId, parentRef);
  if (!parent) throw objectNotFound(parentRef);
  const distinctIds = recipients.flatMap((r) => (r.kind === 'user' ? [r.distinctId] : []));
  const refs = recipients.flatMap((r) => (r.kind === 'object' ? [r.ref] : []));
  return deleteSubscriptions(trx, workspaceId, parent.id, distinctIds, refs);
}
