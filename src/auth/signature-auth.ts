import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { findAuthenticatingWorkspaceKey } from '../repositories/workspace-keys.js';
import type { CachedAuthDeps } from './api-key-auth.js';
import { credentialTag, workspaceTag } from '../domain/credential-tags.js';
import { authenticationFailed, type BaseAuth } from './request-auth.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { constantTimeEqual } from '../crypto/tokens.js';

/** `<workspace_key>:<base64 signature>`, as the official backend SDKs send it. */
const SIGNED = /^([A-Za-z0-9_-]{1,128}):([A-Za-z0-9+/]{43}=)$/;

export const parseSignedAuthorization = (header: string | undefined) => {
  const match = header ? SIGNED.exec(header.trim()) : null;
  return match ? { key: match[1]!, signature: match[2]! } : undefined;
};

/**
 * The five signed lines: METHOD, md5 hex of the exact body bytes ('' without a body), Content-Type
 * and Date as sent, and the raw path plus query (percent-encoding as received; a bare `?` is no query).
 */
export function stringToSign(request: FastifyRequest): string {
  const body = request.rawBody;
  const md5 = body && body.length > 0 ? createHash('md5').update(body).digest('hex') : '';
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  // An empty query (`…/?`) counts as none, as the SDKs' URL parsing sees it.
  const target = (request.raw.url ?? '').replace(/\?$/, '');
  return [request.method, md5, header('content-type'), header('date'), target].join('\n');
}

export const sign = (secret: string, payload: string) =>
  createHmac('sha256', secret).update(payload, 'utf8').digest('base64');

/** RFC 7231 (`Wed, 25 Nov 2026 10:00:00 GMT`) and ISO 8601 dates both parse; anything else is NaN. */
const withinSkew = (date: string, maxSkewSeconds: number, now = Date.now()) => {
  const sent = Date.parse(date);
  return Number.isFinite(sent) && Math.abs(now - sent) <= maxSkewSeconds * 1000;
};

// Unknown keys still pay for an HMAC, so timing does not tell a wrong key from a wrong signature.
const decoySecret = randomBytes(32).toString('base64url');

export interface SignatureAuthDeps extends CachedAuthDeps {
  secretBox: SecretBox;
  maxSkewSeconds: number;
}

/**
 * The pair a key names, with its secret decrypted, while it may authenticate. Cached when found,
 * so a signed request pays no AES-GCM decryption; rotating, pausing or deleting the pair drops
 * the entry (changeCredentials). A secret that cannot be decrypted is never cached.
 */
function findSigningPair(deps: SignatureAuthDeps, request: FastifyRequest, key: string) {
  return deps.credentials.lookup(`workspace_key:${key}`, async () => {
    const row = await findAuthenticatingWorkspaceKey(deps.db, key);
    if (!row) return undefined;
    const { workspace_key_id, secret_ciphertext, ...workspace } = row;
    let secret: string;
    try {
      secret = deps.secretBox.decrypt(secret_ciphertext);
    } catch {
      request.log.error({ workspace_key_id }, 'workspace secret cannot be decrypted (was SECRET_KEY changed?)');
      return undefined;
    }
    return {
      value: { credentialId: workspace_key_id, secret, workspace },
      tags: [credentialTag(workspace_key_id), workspaceTag(workspace.id)],
    };
  });
}

/**
 * Signed workspace key: every failure (unknown or disabled key, bad signature, missing or stale
 * Date) is the same 401, so a caller cannot learn which part was wrong.
 */
export async function authenticateSignedRequest(deps: SignatureAuthDeps, request: FastifyRequest): Promise<BaseAuth> {
  const failed = authenticationFailed('invalid signature or workspace key');
  const credential = parseSignedAuthorization(request.headers.authorization);
  if (!credential) throw failed;
  const found = await findSigningPair(deps, request, credential.key);
  const matches = constantTimeEqual(sign(found?.secret ?? decoySecret, stringToSign(request)), credential.signature);
  const fresh = withinSkew(String(request.headers.date ?? ''), deps.maxSkewSeconds);
  if (!found || !matches || !fresh) throw failed;
  return { surface: 'base', method: 'workspace_key', credentialId: found.credentialId, workspace: found.workspace };
}
