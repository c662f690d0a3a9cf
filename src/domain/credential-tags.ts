/**
 * What a cached credential depends on, named once for the cache that stores it (auth) and the
 * changes that drop it (services), and the channel other instances hear those changes on.
 */

/** The PostgreSQL channel credential changes are announced on; the payload is space-separated tags. */
export const CREDENTIAL_CHANNEL = 'herald_credentials';

/** What an entry depends on: the credential's record id, and its workspace. */
export const credentialTag = (id: string) => `credential:${id}`;
export const workspaceTag = (workspaceId: number) => `workspace:${workspaceId}`;
/** A workspace's inbox keys (public and signing): what open feed sockets were verified against. */
export const inboxKeysTag = (workspaceId: number) => `inbox-keys:${workspaceId}`;

/**
 * The workspaces whose inbox tokens a change may have revoked (its inbox keys, or the workspace itself);
 * `all` when the change names nothing (a cleared cache: notifications may have been missed).
 */
export function inboxWorkspacesChanged(tags: readonly string[] | 'all'): Set<number> | 'all' {
  if (tags === 'all') return 'all';
  const ids = new Set<number>();
  for (const tag of tags) {
    const match = /^(?:inbox-keys|workspace):(\d+)$/.exec(tag);
    if (match) ids.add(Number(match[1]));
  }
  return ids;
}

/**
 * What a trigger's cached lookups depend on (src/engine/intake.ts): a workspace's live workflows, and
 * its tenants. Announced on the same channel, so they share the credentials' cache and listener.
 */
export const workflowsTag = (workspaceId: number) => `workflows:${workspaceId}`;
export const tenantsTag = (workspaceId: number) => `tenants:${workspaceId}`;
