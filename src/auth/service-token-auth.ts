import type { FastifyRequest } from 'fastify';
import { notFound } from '../errors.js';
import { findActiveServiceToken } from '../repositories/service-tokens.js';
import { findWorkspaceBySlug } from '../repositories/workspaces.js';
import type { CachedAuthDeps } from './api-key-auth.js';
import { credentialTag, workspaceTag } from './credential-cache.js';
import { authenticationFailed, credentialFor, type RequestAuth } from './request-auth.js';
import { hashToken } from './tokens.js';

/**
 * Management surface: `Authorization: ServiceToken <TOKEN>`, then the `{workspace}` path
 * segment resolved once. Token first, so an unauthenticated caller cannot probe for slugs.
 * Both lookups are cached when found (the token by its hash); revoking drops the token's entry.
 */
export async function authenticateManagementRequest(deps: CachedAuthDeps, request: FastifyRequest): Promise<RequestAuth> {
  const token = credentialFor(request.headers.authorization, 'ServiceToken');
  if (!token) throw authenticationFailed('missing or malformed Authorization header; expected "ServiceToken <TOKEN>"');
  const tokenHash = hashToken(token);
  const found = await deps.credentials.lookup(`service_token:${tokenHash}`, async () => {
    const row = await findActiveServiceToken(deps.db, tokenHash);
    if (!row) return undefined;
    const actor = row.actor_name || row.actor_email ? { name: row.actor_name ?? '', email: row.actor_email ?? '' } : null;
    return { value: { tokenId: row.id, actor }, tags: [credentialTag(row.id)] };
  });
  if (!found) throw authenticationFailed('invalid service token');
  const slug = (request.params as { workspace?: string } | undefined)?.workspace;
  if (slug === undefined) return { surface: 'management', ...found, workspace: null };
  const workspace = await deps.credentials.lookup(`workspace:${slug}`, async () => {
    const row = await findWorkspaceBySlug(deps.db, slug);
    return row && { value: row, tags: [workspaceTag(row.id)] };
  });
  if (!workspace) throw notFound(`workspace '${slug}' not found`);
  return { surface: 'management', ...found, workspace };
}
