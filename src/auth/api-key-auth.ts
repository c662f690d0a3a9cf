import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { findWorkspaceByApiKey } from '../repositories/api-keys.js';
import { authenticationFailed, credentialFor, type RequestAuth } from './request-auth.js';

/** Base surface: `Authorization: Bearer <API_KEY>`. Looked up on every request, so a disabled key fails at once. */
export async function authenticateApiKeyRequest(db: Db, request: FastifyRequest): Promise<RequestAuth> {
  const apiKey = credentialFor(request.headers.authorization, 'Bearer');
  if (!apiKey) throw authenticationFailed('missing or malformed Authorization header; expected "Bearer <API_KEY>"');
  const found = await findWorkspaceByApiKey(db, apiKey);
  if (!found) throw authenticationFailed('invalid API key');
  const { api_key_id, ...workspace } = found;
  return { surface: 'base', method: 'api_key', credentialId: api_key_id, workspace };
}
