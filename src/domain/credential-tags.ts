/**
 * What a cached credential depends on, named once for the cache that stores it (auth) and the
 * changes that drop it (services), and the channel other instances hear those changes on.
 */

/** The PostgreSQL channel credential changes are announced on; the payload is space-separated tags. */
export const CREDENTIAL_CHANNEL = 'herald_credentials';

/** What an entry depends on: the credential's record id, and its workspace. */
export const credentialTag = (id: string) => `credential:${id}`;
export const workspaceTag = (workspaceId: number) => `workspace:${workspaceId}`;

/**
 * What a trigger's cached lookups depend on (src/engine/intake.ts): a workspace's live workflows, and
 * its tenants. Announced on the same channel, so they share the credentials' cache and listener.
 */
export const workflowsTag = (workspaceId: number) => `workflows:${workspaceId}`;
export const tenantsTag = (workspaceId: number) => `tenants:${workspaceId}`;
