import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { findWorkspaceByApiKey } from '../repositories/api-keys.js';
import { type CredentialCache } from './credential-cache.js';
import { credentialTag, workspaceTag } from '../domain/credential-tags.js';
import { authenticationFailed, credentialFor, type BaseAuth } from './request-auth.js';
import { hashToken } from '../crypto/tokens.js';

export interface CachedAuthDeps {
  db: Db;
  credentials: CredentialCache;
}

/**
 * Base surface: `Authorization: Bearer <API_KEY>`. Found keys are cached by their hash (never in
 * plain text); disabling a key drops its entry at once (changeCredentials), so it fails from the next call.
 */
export async function authenticateApiKeyRequest(deps: CachedAuthDeps, request: FastifyRequest): Promise<BaseAuth> {
  const apiKey = credentialFor(request.headers.authorization, 'Bearer');
  if (!apiKey) throw authenticationFailed('missing or malformed Authorization header; expected "Bearer <API_KEY>"');
  const keyHash = hashToken(apiKey);
  const found = await deps.credentials.lookup(`api_key:${keyHash}`, async () => {
    const row = await findWorkspaceByApiKey(deps.db, keyHash);
    if (!row) return undefined;
    const { api_key_id, ...workspace } = row;
    return {
      value: { credentialId: api_key_id, workspace },
      tags: [credentialTag(api_key_id), workspaceTag(workspace.id)],
    };
  });
  if (!found) throw authenticationFailed('invalid API key');
  return { surface: 'base', method: 'api_key', ...found };
}
