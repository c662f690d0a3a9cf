/**
 * What a cached credential depends on, named once for the cache that stores it (auth) and the
 * changes that drop it (services), and the channel other instances hear those changes on.
 */

/** The PostgreSQL channel credential changes are announced on; the payload is space-separated tags. */
export const CREDENTIAL_CHANNEL = 'herald_credentials';

/** What an entry depends on: the credential's record id, and its workspace. */
export const credentialTag = (id: string) => `credential:${id}`;
export const workspaceTag = (workspaceId: number) => `workspace:${workspaceId}`;
