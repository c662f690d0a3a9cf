import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { credentialTag } from '../domain/credential-tags.js';
import { normalizeDomains } from '../domain/workspace-keys.js';
import { badRequest, notFound, notFoundErrors } from '../errors.js';
import { isPrefixedId } from '../ids.js';
import {
  createWorkspaceKey as insertWorkspaceKey,
  deleteWorkspaceKey as deleteWorkspaceKeyRow,
  findSigningWorkspaceKey,
  findWorkspaceKey,
  hasWorkspaceKey,
  listWorkspaceKeys as listWorkspaceKeyRows,
  rotateWorkspaceKeySecret,
  setWorkspaceKeyActive,
} from '../repositories/workspace-keys.js';
import { WORKSPACE_KEY_ID_PREFIX } from '../schemas/identifiers.js';
import { changeCredentials, type CredentialCache } from './credential-changes.js';

/**
 * Workspace key/secret pairs. A change to a live pair is a credential change: it runs in its own
 * transaction with its NOTIFY (changeCredentials), so this instance's cache is dropped only
 * after it commits.
 */

export interface PairChange {
  workspaceId: number;
  id: string;
  actor: ActorColumn | null;
}

/** The legacy calls (`/{workspace_key}/trigger/`, `…/broadcast/`) name the workspace key in their path: 404 unless it is this workspace's. */
export async function checkPathWorkspaceKey(db: Db, workspaceId: number, key: string) {
  if (!(await hasWorkspaceKey(db, workspaceId, key))) throw notFound('workspace key not found');
}

/**
 * What `GET /v1/{workspace}/ws_key/bridge/` answers: the key pair the hosted platform's CLI signs the
 * workspace's base calls with. The default pair while it may authenticate, else the oldest active one;
 * 404 when every pair is paused or deleted.
 */
export async function defaultWorkspaceKeyPair(db: Db, box: SecretBox, workspaceId: number) {
  const pair = await findSigningWorkspaceKey(db, workspaceId);
  if (!pair) throw notFound('the workspace has no active key pair: activate or create one');
  return { key: pair.key, secret: box.decrypt(pair.secret_ciphertext) };
}

export const listWorkspaceKeys = (db: Db, workspaceId: number, page: { limit: number; offset: number }) =>
  listWorkspaceKeyRows(db, workspaceId, page);

export async function getWorkspaceKey(db: Db, workspaceId: number, id: string) {
  const pair = isPrefixedId(WORKSPACE_KEY_ID_PREFIX, id) ? await findWorkspaceKey(db, workspaceId, id) : undefined;
  if (!pair) throw notFoundErrors.workspaceKey(id);
  return pair;
}

export const createWorkspaceKey = (
  db: Db,
  box: SecretBox,
  input: { workspaceId: number; name: string; allowedDomains?: string[]; actor: ActorColumn | null },
) =>
  insertWorkspaceKey(db, box, {
    workspaceId: input.workspaceId,
    name: input.name,
    isDefault: false,
    allowedDomains: normalizeDomains(input.allowedDomains),
    createdBy: input.actor,
  });

/**
 * Why a change found no live pair: unknown here (404), deleted (404: a deleted pair is a
 * tombstone, readable but never changed again), or, for delete only, the default pair (400).
 */
async function refusal(db: Db, workspaceId: number, id: string, action: 'change' | 'delete') {
  const pair = isPrefixedId(WORKSPACE_KEY_ID_PREFIX, id) ? await findWorkspaceKey(db, workspaceId, id) : undefined;
  if (!pair) return notFoundErrors.workspaceKey(id);
  if (pair.is_deleted) return notFoundErrors.deletedWorkspaceKey(id);
  if (action === 'delete' && pair.is_default) {
    return badRequest(
      `workspace key '${id}' is the workspace's default pair and cannot be deleted; rotate it instead`,
      { id: 'is the default pair' },
    );
  }
  return notFoundErrors.workspaceKey(id);
}

/** Runs one change (a single UPDATE … RETURNING) on a live pair of the workspace, or throws why it matched none. */
async function changePair<T>(
  db: Db,
  cache: CredentialCache | undefined,
  change: PairChange,
  action: 'change' | 'delete',
  run: (trx: Trx) => Promise<T | undefined>,
) {
  const result = isPrefixedId(WORKSPACE_KEY_ID_PREFIX, change.id)
    ? await changeCredentials(db, cache, async (trx) => {
        const value = await run(trx);
        return { value, changed: value === undefined ? [] : [credentialTag(change.id)] };
      })
    : undefined;
  if (result === undefined) throw await refusal(db, change.workspaceId, change.id, action);
  return result;
}

/** Same key, new secret: the old secret stops authenticating at once. */
export const rotateWorkspaceKey = (db: Db, cache: CredentialCache | undefined, box: SecretBox, change: PairChange) =>
  changePair(db, cache, change, 'change', (trx) =>
    rotateWorkspaceKeySecret(trx, box, { workspaceId: change.workspaceId, id: change.id, rotatedBy: change.actor }),
  );

export const setWorkspaceKeyActivity = (
  db: Db,
  cache: CredentialCache | undefined,
  change: PairChange,
  isActive: boolean,
) =>
  changePair(db, cache, change, 'change', (trx) =>
    setWorkspaceKeyActive(trx, { workspaceId: change.workspaceId, id: change.id, isActive }),
  );

/** The pair stays listed with is_deleted and never authenticates again; the default pair cannot be deleted. */
export const deleteWorkspaceKey = (db: Db, cache: CredentialCache | undefined, change: PairChange) =>
  changePair(db, cache, change, 'delete', (trx) =>
    deleteWorkspaceKeyRow(trx, { workspaceId: change.workspaceId, id: change.id, deletedBy: change.actor }),
  );
