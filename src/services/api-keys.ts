import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { credentialTag } from '../domain/credential-tags.js';
import { notFoundErrors } from '../errors.js';
import { isPrefixedId } from '../ids.js';
import {
  createApiKey as insertApiKey,
  disableApiKey,
  listApiKeys as listApiKeyRows,
} from '../repositories/api-keys.js';
import { API_KEY_ID_PREFIX } from '../schemas/identifiers.js';
import { changeCredentials, type CredentialCache } from './credential-changes.js';

/** API keys: the full key exists only in createApiKey's result; only its hash is stored. */

export const listApiKeys = (db: Db, workspaceId: number, page: { limit: number; offset: number }) =>
  listApiKeyRows(db, workspaceId, page);

export const createApiKey = (
  db: Db,
  input: { workspaceId: number; name: string; description?: string | null; actor: ActorColumn | null },
) =>
  insertApiKey(db, {
    workspaceId: input.workspaceId,
    name: input.name,
    description: input.description,
    createdBy: input.actor,
  });

/**
 * Disables a key on every instance: in its own transaction with its NOTIFY, this instance's cached
 * lookups dropped after commit, so it fails from the next request on.
 */
export async function deleteApiKey(
  db: Db,
  cache: CredentialCache | undefined,
  input: { workspaceId: number; id: string; actor: ActorColumn | null },
) {
  const { workspaceId, id, actor } = input;
  const disabled =
    isPrefixedId(API_KEY_ID_PREFIX, id) &&
    (await changeCredentials(db, cache, async (trx) => {
      const value = await disableApiKey(trx, { workspaceId, id, deletedBy: actor });
      return { value, changed: value ? [credentialTag(id)] : [] };
    }));
  if (!disabled) throw notFoundErrors.apiKey(id);
}
