import type { FastifyRequest } from 'fastify';
import type { ActorColumn, Workspace } from '../db/types.js';
import { HttpError, notFound } from '../errors.js';

/** Who is calling, as the surface's auth hook established it; routes read this, never the headers. */
export type RequestAuth =
  | { surface: 'base'; method: 'api_key' | 'workspace_key'; credentialId: string; workspace: Workspace }
  | { surface: 'management'; tokenId: string; actor: ActorColumn | null; workspace: Workspace | null };

declare module 'fastify' {
  interface FastifyRequest {
    auth: RequestAuth;
  }
}

/** `Authorization: <scheme> <credential>` → credential, when the scheme matches (case-insensitive). */
export function credentialFor(header: string | undefined, scheme: string): string | undefined {
  if (!header) return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  const credential = header.slice(space + 1).trim();
  return credential.length > 0 && credential.length <= 512 ? credential : undefined;
}

/** The workspace the request acts on: the credential's (base) or the `{workspace}` path segment's (management). */
export function workspaceOf(request: FastifyRequest): Workspace {
  const workspace = request.auth?.workspace;
  if (!workspace) throw notFound('workspace not found');
  return workspace;
}

/** The Actor recorded on changes: the service token's owner; null on the base surface. */
export const actorOf = (request: FastifyRequest): ActorColumn | null =>
  request.auth?.surface === 'management' ? request.auth.actor : null;

export const authenticationFailed = (message: string) =>
  new HttpError(401, message, null, { errorCode: 'authentication_failed', type: 'AuthenticationFailed' });
