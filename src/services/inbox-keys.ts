import { generateKeyPairSync } from 'node:crypto';
import { randomToken } from '../crypto/tokens.js';
import { prefixedId } from '../ids.js';
import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { badRequest, notFound } from '../errors.js';
import { insertPublicKey, insertSigningKey, retireSigningKey, updatePublicKey } from '../repositories/inbox-keys.js';
import { inboxKeysTag } from '../domain/credential-tags.js';
import { changeCredentials, type CredentialCache } from './credential-changes.js';

export const newPublicKey = () => randomToken('SS.PUBK.', 32);

/** A fresh ES256 key pair: the public half is stored, the private half only returned. */
function es256KeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

async function addSigningKey(db: Db, workspaceId: number, actor: ActorColumn | null) {
  const pair = es256KeyPair();
  const row = await insertSigningKey(db, {
    id: prefixedId('ws_signk_'),
    uid: prefixedId('signing_key_'),
    workspaceId,
    publicKeyPem: pair.publicKeyPem,
    actor,
  });
  return {
    row,
    public_key_pem: pair.publicKeyPem,
    private_key_pem: pair.privateKeyPem,
    private_key_base64: Buffer.from(pair.privateKeyPem).toString('base64'),
  };
}

const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === '23505';

/** One active key per workspace: a second is a 400, as on the anchor (the partial unique index decides races). */
export async function createSigningKey(db: Db, workspaceId: number, actor: ActorColumn | null) {
  try {
    return await addSigningKey(db, workspaceId, actor);
  } catch (error) {
    if (isUniqueViolation(error))
      throw badRequest('only 1 active signing key is allowed: roll the active one instead', {
        errors: ['only 1 active signing key is allowed'],
      });
    throw error;
  }
}

/** The active key becomes `rolled` (it still verifies until deleted) and a new active key is made. */
export async function rollSigningKey(trx: Trx, workspaceId: number, uid: string, actor: ActorColumn | null) {
  const rolled = await retireSigningKey(trx, workspaceId, uid, 'rolled', actor);
  if (!rolled) throw notFound(`active signing key '${uid}' not found`);
  return addSigningKey(trx, workspaceId, actor);
}

/** A public key for web pages: its id and key are made here. */
export const createPublicKey = (
  db: Db,
  input: { workspaceId: number; name: string; description: string | null; actor: ActorColumn | null },
) => insertPublicKey(db, { id: prefixedId('ws_pubk_'), apiKey: newPublicKey(), ...input });

/**
 * Deletes a signing key, or deletes or rotates a public key, announced as a credential change (NOTIFY in the
 * same transaction): open feed sockets the old key admitted are checked again on every instance and refused
 * (src/base/feed-socket.ts). Undefined when no such live key exists.
 */
export const revokeSigningKey = (
  db: Db,
  cache: CredentialCache,
  workspaceId: number,
  uid: string,
  actor: ActorColumn | null,
) =>
  changeCredentials(db, cache, async (trx) => {
    const row = await retireSigningKey(trx, workspaceId, uid, 'deleted', actor);
    return { value: row, changed: row ? [inboxKeysTag(workspaceId)] : [] };
  });

export const revokePublicKey = (
  db: Db,
  cache: CredentialCache,
  workspaceId: number,
  id: string,
  change: { apiKey: string } | { delete: true },
  actor: ActorColumn | null,
) =>
  changeCredentials(db, cache, async (trx) => {
    const row = await updatePublicKey(trx, workspaceId, id, change, actor);
    return { value: row, changed: row ? [inboxKeysTag(workspaceId)] : [] };
  });

/** Reads and writes the inbox-key routes call as the repository gives them: routes reach them through this service. */
