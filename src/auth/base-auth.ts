import type { FastifyRequest } from 'fastify';
import { authenticateApiKeyRequest } from './api-key-auth.js';
import { authenticationFailed, credentialFor, type BaseAuth } from './request-auth.js';
import { authenticateSignedRequest, parseSignedAuthorization, type SignatureAuthDeps } from './signature-auth.js';

/** Base surface: a Bearer API key, or a workspace key signature as the backend SDKs send it. */
export async function authenticateBaseRequest(deps: SignatureAuthDeps, request: FastifyRequest): Promise<BaseAuth> {
  const header = request.headers.authorization;
  if (credentialFor(header, 'Bearer')) return authenticateApiKeyRequest(deps, request);
  if (parseSignedAuthorization(header)) return authenticateSignedRequest(deps, request);
  throw authenticationFailed(
    'missing or malformed Authorization header; expected "Bearer <API_KEY>" or "<WORKSPACE_KEY>:<SIGNATURE>"',
  );
}
