import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose';
import type { Db } from '../db/database.js';
import { unauthorized } from '../errors.js';
import { findInboxVerificationKeys } from '../repositories/inbox-keys.js';

/** Who an inbox call is for: the subscriber (a user's distinct_id) in the workspace the public key names. */
export interface InboxSubscriber {
  workspaceId: number;
  workspaceSlug: string;
  distinctId: string;
  tenantId: string | null;
}

const importedKeys = new Map<string, ReturnType<typeof importSPKI>>();
// Imported keys are cached by their PEM (immutable for a uid); bounded, since keys are few per workspace.
function importKey(pem: string) {
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
export async function verifyInboxToken(
  db: Db,
  headers: { authorization?: string; signature?: string },
): Promise<InboxSubscriber> {
  const publicKey = headers.authorization?.replace(/^Bearer\s+/i, '').trim();
  const token = headers.signature?.trim();
  if (!publicKey || !token) throw unauthorized();
  const found = await findInboxVerificationKeys(db, publicKey);
  if (!found || found.signingKeys.length === 0) throw unauthorized();
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw unauthorized();
  }
  // A token naming its key is tried against that key only; one without a kid against each usable key.
  const candidates = kid ? found.signingKeys.filter((key) => key.uid === kid) : found.signingKeys;
  for (const candidate of candidates) {
    try {
      const { payload } = await jwtVerify(token, await importKey(candidate.pem), {
        algorithms: ['ES256'],
        requiredClaims: ['exp', 'entity_id'],
      });
      const scope = payload.scope as { tenant_id?: unknown } | undefined;
      if (payload.entity_type !== 'subscriber' || typeof payload.entity_id !== 'string' || payload.entity_id === '')
        throw unauthorized();
      return {
        workspaceId: found.workspaceId,
        workspaceSlug: found.workspaceSlug,
        distinctId: payload.entity_id,
        tenantId: typeof scope?.tenant_id === 'string' ? scope.tenant_id : null,
      };
    } catch {
      // The next candidate key, if any.
    }
  }
  throw unauthorized();
}
