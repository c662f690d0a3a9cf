import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Workspace } from '../db/types.js';
import { notFoundErrors } from '../errors.js';
import { findActiveServiceToken } from '../repositories/service-tokens.js';
import { findWorkspaceBySlug } from '../repositories/workspaces.js';
import type { CachedAuthDeps } from './api-key-auth.js';
import { credentialTag, workspaceTag } from '../domain/credential-tags.js';
import { authenticationFailed, credentialFor, type RequestAuth } from './request-auth.js';
import { hashToken } from '../crypto/tokens.js';

/**
 * Management surface: `Authorization: ServiceToken <TOKEN>`, cached by the token's hash when
 * found; revoking drops the entry. Runs before the `{workspace}` segment is looked at, so an
 * unauthenticated caller cannot probe for slugs.
 */
export async function authenticateManagementRequest(
  deps: CachedAuthDeps,
  request: FastifyRequest,
): Promise<RequestAuth> {
  const token = credentialFor(request.headers.authorization, 'ServiceToken');
  if (!token) throw authenticationFailed('missing or malformed Authorization header; expected "ServiceToken <TOKEN>"');
  const tokenHash = hashToken(token);
  const found = await deps.credentials.lookup(`service_token:${tokenHash}`, async () => {
    const row = await findActiveServiceToken(deps.db, tokenHash);
    if (!row) return undefined;
    const actor =
      row.actor_name || row.actor_email ? { name: row.actor_name ?? '', email: row.actor_email ?? '' } : null;
    return { value: { tokenId: row.id, actor }, tags: [credentialTag(row.id)] };
  });
  if (!found) throw authenticationFailed('invalid service token');
  return { surface: 'management', ...found };
}

/** The workspace a `{workspace}` path segment names, cached when found (404 otherwise). */
export async function workspaceOfPath(deps: CachedAuthDeps, request: FastifyRequest): Promise<Workspace> {
  const slug = (request.params as { workspace?: string } | undefined)?.workspace ?? '';
  const workspace = await deps.credentials.lookup(`workspace:${slug}`, async () => {
    const row = await findWorkspaceBySlug(deps.db, slug);
    return row && { value: row, tags: [workspaceTag(row.id)] };
  });
  if (!workspace) throw notFoundErrors.workspace(slug);
  return workspace;
}

/**
 * The service-token hooks' two steps, each spending the client address's failure budget when it
 * fails (`onFailure`: the rate limiter's), an unknown workspace included: the management tree and
 * the CLI's key bridge at the root authenticate the same way.
 */
export function serviceTokenSteps(
  deps: CachedAuthDeps,
  onFailure: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
) {
  const limitingFailures =
    <T>(step: (request: FastifyRequest) => Promise<T>) =>
    (request: FastifyRequest, reply: FastifyReply) =>
      step(request).catch(async (error: unknown) => {
        await onFailure(request, reply);
        throw error;
      });
  return {
    authenticate: limitingFailures((request) => authenticateManagementRequest(deps, request)),
    resolveWorkspace: limitingFailures((request) => workspaceOfPath(deps, request)),
  };
}
