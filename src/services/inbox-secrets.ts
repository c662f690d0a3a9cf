import { createHmac } from 'node:crypto';
import type { Db } from '../db/database.js';
import type { Sealer } from '../domain/vendor-secrets.js';
import { constantTimeEqual, maskToken, randomToken } from '../crypto/tokens.js';
import { notFound } from '../errors.js';
import { findInboxSecret, replaceInboxSecret } from '../repositories/inbox-secrets.js';
import { inboxKeysTag } from '../domain/credential-tags.js';
import { changeCredentials, type CredentialCache } from './credential-changes.js';

/** What the customer's server computes for the older inbox clients: base64url(HMAC-SHA256(secret, distinct_id)), no padding. */
export const inboxSubscriberId = (secret: string, distinctId: string) =>
  createHmac('sha256', secret).update(distinctId, 'utf8').digest('base64url');

/** The secret as the management API shows it after it is made: masked. */
export async function readInboxSecret(db: Db, secretBox: Sealer, workspaceId: number) {
  const row = await findInboxSecret(db, workspaceId);
  if (!row) throw notFound('the workspace has no inbox secret yet: POST to this path makes one');
  return { secret: maskToken(secretBox.decrypt(row.secret_ciphertext)), created_at: row.created_at.toISOString() };
}

/** Makes (or replaces) the inbox secret; the answer is the only time it is shown whole. */
export async function rotateInboxSecret(
  db: Db,
  deps: { secretBox: Sealer; cache: CredentialCache | undefined },
  workspaceId: number,
) {
  const secret = randomToken('SS.INBOX.', 32);
  // Announced as an inbox key change: every instance checks the older clients' open sockets again.
  return changeCredentials(db, deps.cache, async (trx) => {
    const row = await replaceInboxSecret(trx, workspaceId, deps.secretBox.encrypt(secret));
    return { value: { secret, created_at: row.created_at.toISOString() }, changed: [inboxKeysTag(workspaceId)] };
  });
}

/** Whether `subscriberId` is the workspace's signature of `distinctId` (false when the workspace has no secret). */
export async function inboxSubscriberIdMatches(
  db: Db,
  secretBox: Sealer,
  workspaceId: number,
  distinctId: string,
  subscriberId: string,
) {
  const row = await findInboxSecret(db, workspaceId);
  if (!row) return false;
  return constantTimeEqual(inboxSubscriberId(secretBox.decrypt(row.secret_ciphertext), distinctId), subscriberId);
}
