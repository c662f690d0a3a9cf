import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { notFound } from '../errors.js';
import { findActiveServiceToken } from '../repositories/service-tokens.js';
import { findWorkspaceBySlug } from '../repositories/workspaces.js';
import { authenticationFailed, credentialFor, type RequestAuth } from './request-auth.js';

/**
 * Management surface: `Authorization: ServiceToken <TOKEN>`, then the `{workspace}` path
 * segment resolved once. Token first, so an unauthenticated caller cannot probe for slugs.
 */
export async function authenticateManagementRequest(db: Db, request: FastifyRequest): Promise<RequestAuth> {
  const token = credentialFor(request.headers.authorization, 'ServiceToken');
  if (!token) throw authenticationFailed('missing or malformed Authorization header; expected "ServiceToken <TOKEN>"');
  const found = await findActiveServiceToken(db, token);
  if (!found) throw authenticationFailed('invalid service token');
  const actor = found.actor_name || found.actor_email ? { name: found.actor_name ?? '', email: found.actor_email ?? '' } : null;
  const slug = (request.params as { workspace?: string } | undefined)?.workspace;
  const workspace = slug === undefined ? null : ((await findWorkspaceBySlug(db, slug)) ?? null);
  if (slug !== undefined && !workspace) throw notFound(`workspace '${slug}' not found`);
  return { surface: 'management', tokenId: found.id, actor, workspace };
}
