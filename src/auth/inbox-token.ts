import type { importSPKI } from 'jose';
import type { Db } from '../db/database.js';
import { HttpError, unauthorized } from '../errors.js';
import { findInboxVerificationKeys } from '../repositories/inbox-keys.js';

/** Who an inbox call is for: the subscriber (a user's distinct_id) in the workspace the public key names. */
export interface InboxSubscriber {
  workspaceId: number;
  workspaceSlug: string;
  distinctId: string;
  tenantId: string | null;
}

// jose, loaded at the first inbox call rather than at the start (it serves nothing before one).
let jose: Promise<typeof import('jose')> | undefined;

const importedKeys = new Map<string, ReturnType<typeof importSPKI>>();
// Imported keys are cached by their PEM (immutable for a uid); bounded, since keys are few per workspace.
function importKey(pem: string, { importSPKI }: typeof import('jose')) {
  let key = importedKeys.get(pem);
  if (!key) {
    key = importSPKI(pem, 'ES256');
    importedKeys.set(pem, key);
    if (importedKeys.size > 1000) importedKeys.delete(importedKeys.keys().next().value!);
  }
  return key;
}

/**
 * Verifies a browser's inbox call (docs/channels.md): `Authorization` carries the workspace's
 * public key (bare, or after `Bearer `), `x-ss-signature` an ES256 JWT signed with one of the
 * workspace's signing keys (active, or rolled and not yet deleted), with `exp` required and
 * `{entity_type: "subscriber", entity_id}`. Only ES256 is accepted, so `none` and HS256 tokens
 * fail before any key is tried. Every failure is the same 401: a caller learns nothing of why.
 */
export const verifyInboxToken = async (db: Db, headers: { authorization?: string; signature?: string }) =>
  (await verifyInboxConnection(db, headers)).subscriber;

/** verifyInboxToken, with when the token expires (its `exp`, in ms since the epoch): an open socket is closed then. */
export async function verifyInboxConnection(
  db: Db,
  headers: { authorization?: string; signature?: string },
  findKeys: typeof findInboxVerificationKeys = findInboxVerificationKeys,
): Promise<{ subscriber: InboxSubscriber; expiresAt: number }> {
  const publicKey = headers.authorization?.replace(/^Bearer\s+/i, '').trim();
  const token = headers.signature?.trim();
  if (!publicKey || !token) throw unauthorized();
  const found = await findKeys(db, publicKey);
  if (!found || found.signingKeys.length === 0) throw unauthorized();
  const library = await (jose ??= import('jose'));
  let kid: string | undefined;
  try {
    kid = library.decodeProtectedHeader(token).kid;
  } catch {
    throw unauthorized();
  }
  // A token naming its key is tried against that key only; one without a kid against each usable key.
  const candidates = kid ? found.signingKeys.filter((key) => key.uid === kid) : found.signingKeys;
  for (const candidate of candidates) {
    try {
      const { payload } = await library.jwtVerify(token, await importKey(candidate.pem, library), {
        algorithms: ['ES256'],
        requiredClaims: ['exp', 'entity_id'],
      });
      const scope = payload.scope as { tenant_id?: unknown } | undefined;
      if (payload.entity_type !== 'subscriber' || typeof payload.entity_id !== 'string' || payload.entity_id === '')
        throw unauthorized();
      return {
        subscriber: {
          workspaceId: found.workspaceId,
          workspaceSlug: found.workspaceSlug,
          distinctId: payload.entity_id,
          tenantId: typeof scope?.tenant_id === 'string' ? scope.tenant_id : null,
        },
        expiresAt: payload.exp! * 1000,
      };
    } catch {
      // The next candidate key, if any.
    }
  }
  throw unauthorized();
}

/**
 * verifyInboxToken for many open connections at once (a revocation re-checks them): the keys of each
 * public key are looked up once. Resolves `false` for a token that no longer verifies; a failed lookup rejects.
 */
export function inboxTokenChecker(db: Db) {
  const keys = new Map<string, ReturnType<typeof findInboxVerificationKeys>>();
  const findKeys: typeof findInboxVerificationKeys = (db, publicKey) => {
    let found = keys.get(publicKey);
    if (!found) keys.set(publicKey, (found = findInboxVerificationKeys(db, publicKey)));
    return found;
  };
  return (headers: { authorization?: string; signature?: string }) =>
    verifyInboxConnection(db, headers, findKeys).then(
      () => true,
      (error: unknown) => {
        if (error instanceof HttpError && error.status === 401) return false;
        throw error;
      },
    );
}

/** Which workspaces' open feed sockets a credential change asks to check again (src/base/feed-socket.ts). */
export { inboxWorkspacesChanged } from '../domain/credential-tags.js';
