import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import { revokeServiceToken } from '../repositories/service-tokens.js';
import { CREDENTIAL_CHANNEL, credentialTag } from '../domain/credential-tags.js';

/** What a change drops its credentials from: this instance's cache (auth/credential-cache.ts). */
export interface CredentialCache {
  invalidate(tags: readonly string[]): void;
}

/** Announces changed credentials to every instance; delivered only if the surrounding transaction commits. */
export async function notifyCredentialChange(trx: Trx, tags: readonly string[]) {
  if (tags.length > 0) await sql`select pg_notify(${CREDENTIAL_CHANNEL}, ${tags.join(' ')})`.execute(trx);
}

/**
 * Runs a change to credentials in one transaction together with its NOTIFY, then drops this
 * instance's entries before the caller answers. `work` returns the tags of what it changed
 * (none when it changed nothing). The CLI passes no cache: it has none, other instances hear the NOTIFY.
 */
export async function changeCredentials<T>(
  db: Db,
  cache: CredentialCache | undefined,
  work: (trx: Trx) => Promise<{ value: T; changed: readonly string[] }>,
): Promise<T> {
  const { value, changed } = await db.transaction().execute(async (trx) => {
    const outcome = await work(trx);
    await notifyCredentialChange(trx, outcome.changed);
    return outcome;
  });
  cache?.invalidate(changed);
  return value;
}

/** Revokes a service token (by id or by the token) on every instance; whether a live token was revoked. */
export const revokeServiceTokenEverywhere = (db: Db, cache: CredentialCache | undefined, idOrToken: string) =>
  changeCredentials(db, cache, async (trx) => {
    const id = await revokeServiceToken(trx, idOrToken);
    return { value: id !== undefined, changed: id === undefined ? [] : [credentialTag(id)] };
  });
