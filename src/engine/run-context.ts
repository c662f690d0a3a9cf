import type { Db } from '../db/database.js';
import { perDatabase } from '../db/per-database.js';
import type { Namespaces } from '../domain/paths.js';
import type { Recipient } from '../domain/trigger-records.js';
import { findObject } from '../repositories/objects.js';
import { findTenantSettings } from '../repositories/executions.js';
import { findUserByDistinctId } from '../repositories/users.js';
import { findVersionTree } from '../repositories/workflow-trees.js';
import type { LockedRun } from '../repositories/runs.js';
import type { RunRecipient } from './nodes/types.js';

/** What a run step and its deliveries read about the run's world: the tree, the recipient, the namespaces. */

const treesOf = perDatabase<unknown>();
const TREE_CACHE_LIMIT = 500;

/** The pinned version's tree (versions never change once committed, so they are cached), or a legacy execution's own. */
export async function runTree(db: Db, run: Pick<LockedRun, 'tree' | 'workflow_id' | 'version_no'>): Promise<unknown> {
  if (run.tree !== null && run.tree !== undefined) return run.tree;
  const key = `${run.workflow_id}:${run.version_no}`;
  const trees = treesOf(db);
  if (trees.has(key)) return trees.get(key);
  const tree = await findVersionTree(db, run.workflow_id!, run.version_no);
  if (trees.size >= TREE_CACHE_LIMIT) trees.clear();
  trees.set(key, tree);
  return tree;
}

const channelValues = (channels: Record<string, unknown[]>) =>
  Object.fromEntries(
    Object.entries(channels).map(([key, entries]) => [
      key,
      (entries as { value?: unknown }[]).map((entry) => entry?.value).filter((v) => v !== undefined),
    ]),
  );

export async function loadRecipient(db: Db, run: LockedRun): Promise<RunRecipient> {
  if (run.recipient_type === 'object') {
    const object = await findObject(db, run.workspace_id, { objectType: run.object_type!, objectId: run.object_id! });
    return {
      type: 'object',
      distinct_id: null,
      object_type: run.object_type,
      object_id: run.object_id,
      userId: null,
      properties: object?.properties ?? {},
      channels: object?.channels ?? {},
    };
  }
  const user = await findUserByDistinctId(db, run.workspace_id, run.distinct_id!);
  const inline = run.inline as { properties?: Record<string, unknown>; channels?: Record<string, unknown[]> } | null;
  return {
    type: 'user',
    distinct_id: run.distinct_id,
    object_type: null,
    object_id: null,
    userId: user?.id ?? null,
    properties: { ...(user?.properties ?? {}), ...(inline?.properties ?? {}) },
    channels: { ...(user?.channels ?? {}), ...(inline?.channels ?? {}) },
  };
}

/** What conditions and templates read as `$recipient`: its ids, properties, and channel values at `$email` … */
export const recipientNamespace = (recipient: RunRecipient): Record<string, unknown> => ({
  ...(recipient.distinct_id !== null ? { distinct_id: recipient.distinct_id } : {}),
  ...(recipient.object_type !== null ? { object_type: recipient.object_type, id: recipient.object_id } : {}),
  ...recipient.properties,
  ...channelValues(recipient.channels),
});

/** The `$actor` namespace of a user actor: its stored profile, and a transient actor's inline one. */
export async function actorNamespace(db: Db, run: LockedRun): Promise<Record<string, unknown> | null> {
  const actorRecipient = run.actor as Recipient | null;
  if (!actorRecipient || actorRecipient.kind !== 'user') return null;
  const user = await findUserByDistinctId(db, run.workspace_id, actorRecipient.distinctId);
  return {
    distinct_id: actorRecipient.distinctId,
    ...(user?.properties ?? {}),
    ...(user ? channelValues(user.channels) : {}),
    ...(actorRecipient.transient ? (actorRecipient.inline ?? {}) : {}),
  };
}

export async function loadNamespaces(
  db: Db,
  run: LockedRun,
  recipient: RunRecipient,
): Promise<Namespaces & { tenantSettings: Record<string, unknown> }> {
  const [tenant] = await findTenantSettings(db, run.workspace_id, [run.tenant_id]);
  const actor = await actorNamespace(db, run);
  const settings = (tenant?.settings ?? {}) as Record<string, unknown>;
  return {
    data: { ...(run.data as Record<string, unknown>), ...(run.run_data as Record<string, unknown>) },
    $recipient: recipientNamespace(recipient),
    $actor: actor,
    $brand: tenant
      ? { tenant_id: run.tenant_id, tenant_name: tenant.tenant_name, ...settings, properties: tenant.properties }
      : null,
    $workflow: { slug: run.workflow_slug, version_no: run.version_no, category: run.category },
    tenantSettings: settings,
  };
}
