import type { Db } from '../db/database.js';
import { perDatabase } from '../db/per-database.js';
import type { Namespaces } from '../domain/paths.js';
import { findObject } from '../repositories/objects.js';
import { findTenantSettings } from '../repositories/executions.js';
import { findUserByDistinctId, findUsersByDistinctIds, type UserRow } from '../repositories/users.js';
import { findVersionTree } from '../repositories/workflow-trees.js';
import type { LockedRun } from '../repositories/runs.js';
import type { RunRecipient } from './types.js';
import type { DeliveryChannel } from '../channels/provider.js';
import type { RenderRequest } from '../channels/rendering.js';

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
  return userRecipient(run, await findUserByDistinctId(db, run.workspace_id, run.distinct_id!));
}

type TenantRow = Awaited<ReturnType<typeof findTenantSettings>>[number];
type UserLike = { id: number; properties: Record<string, unknown>; channels: Record<string, unknown[]> } | undefined;

/** A user run's recipient: the stored user (if any) under the run's inline (transient) properties and channels. */
export function userRecipient(run: LockedRun, user: UserLike): RunRecipient {
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

/** The distinct_id of the run's actor, when it is a user. */
export const actorDistinctId = (run: LockedRun) => {
  const actor = run.actor;
  return actor && actor.kind === 'user' ? actor.distinctId : undefined;
};

/** What conditions and templates read as `$recipient`: its ids, properties, and channel values at `$email` … */
export const recipientNamespace = (recipient: RunRecipient): Record<string, unknown> => ({
  ...(recipient.distinct_id !== null ? { distinct_id: recipient.distinct_id } : {}),
  ...(recipient.object_type !== null ? { object_type: recipient.object_type, id: recipient.object_id } : {}),
  ...recipient.properties,
  ...channelValues(recipient.channels),
});

/** The `$actor` namespace of a user actor: its stored profile, and a transient actor's inline one. */
export async function actorNamespace(db: Db, run: LockedRun): Promise<Record<string, unknown> | null> {
  const distinctId = actorDistinctId(run);
  if (distinctId === undefined) return null;
  return actorOf(run, await findUserByDistinctId(db, run.workspace_id, distinctId));
}

function actorOf(run: LockedRun, user: UserLike): Record<string, unknown> | null {
  const actorRecipient = run.actor;
  if (!actorRecipient || actorRecipient.kind !== 'user') return null;
  return {
    distinct_id: actorRecipient.distinctId,
    ...(user?.properties ?? {}),
    ...(user ? channelValues(user.channels) : {}),
    ...(actorRecipient.transient ? (actorRecipient.inline ?? {}) : {}),
  };
}

export type RunNamespaces = Namespaces & { tenantSettings: Record<string, unknown> };

export async function loadNamespaces(db: Db, run: LockedRun, recipient: RunRecipient): Promise<RunNamespaces> {
  const [tenant] = await findTenantSettings(db, run.workspace_id, [run.tenant_id]);
  const distinctId = actorDistinctId(run);
  const actorUser = distinctId === undefined ? undefined : await findUserByDistinctId(db, run.workspace_id, distinctId);
  return namespacesOf(run, recipient, tenant, actorUser);
}

/** The namespaces conditions and templates read, from what was loaded for the run (one run or a batch). */
export function namespacesOf(
  run: LockedRun,
  recipient: RunRecipient,
  tenant: TenantRow | undefined,
  actorUser: UserLike,
): RunNamespaces {
  const actor = actorOf(run, actorUser);
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

/**
 * What many runs read about their world, set-based: their users (recipients and actors) and tenants,
 * two statements per workspace whatever the number of runs (a batch of run steps or of deliveries).
 * An object recipient is read on its own.
 */
export async function loadRunsWorld(db: Db, runs: Iterable<LockedRun>) {
  const users = new Map<string, UserRow>();
  const tenants = new Map<string, TenantRow>();
  const byWorkspace = new Map<number, LockedRun[]>();
  for (const run of runs) byWorkspace.set(run.workspace_id, [...(byWorkspace.get(run.workspace_id) ?? []), run]);
  for (const [workspaceId, list] of byWorkspace) {
    const ids = new Set<string>();
    for (const run of list) {
      if (run.recipient_type === 'user' && run.distinct_id !== null) ids.add(run.distinct_id);
      const actor = actorDistinctId(run);
      if (actor !== undefined) ids.add(actor);
    }
    for (const user of await findUsersByDistinctIds(db, workspaceId, [...ids]))
      users.set(`${workspaceId}\u0000${user.distinct_id}`, user);
    const tenantIds = [...new Set(list.map((run) => run.tenant_id))];
    for (const tenant of await findTenantSettings(db, workspaceId, tenantIds))
      tenants.set(`${workspaceId}\u0000${tenant.tenant_id}`, tenant);
  }
  const userOf = (workspaceId: number, distinctId: string | null | undefined) =>
    distinctId == null ? undefined : users.get(`${workspaceId}\u0000${distinctId}`);
  return {
    userOf,
    async recipient(run: LockedRun): Promise<RunRecipient> {
      if (run.recipient_type === 'object') return loadRecipient(db, run);
      return userRecipient(run, userOf(run.workspace_id, run.distinct_id));
    },
    namespaces(run: LockedRun, recipient: RunRecipient): RunNamespaces {
      const tenant = tenants.get(`${run.workspace_id}\u0000${run.tenant_id}`);
      return namespacesOf(run, recipient, tenant, userOf(run.workspace_id, actorDistinctId(run)));
    },
  };
}

/** What rendering one run's message needs: the template and channel, the tenant, the recipient's locale and the run's data. */
export function renderRequestOf(
  run: LockedRun,
  recipient: RunRecipient,
  namespaces: RunNamespaces,
  templateSlug: string,
  channel: DeliveryChannel,
): RenderRequest {
  return {
    workspaceId: String(run.workspace_id),
    templateSlug,
    channel,
    tenantId: run.tenant_id,
    category: run.category,
    locale: typeof recipient.properties.$locale === 'string' ? recipient.properties.$locale : null,
    context: {
      data: namespaces.data,
      $recipient: namespaces.$recipient,
      $actor: namespaces.$actor,
      $brand: namespaces.$brand,
      recipient: { subscription: (run.subscription as Record<string, unknown> | null) ?? undefined },
    },
  };
}
