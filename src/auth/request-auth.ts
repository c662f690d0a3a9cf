import type { FastifyRequest } from 'fastify';
import type { ActorColumn, Workspace } from '../db/types.js';
import { HttpError } from '../errors.js';

/** Who is calling, as the surface's auth hook established it; routes read this, never the headers. */
export type RequestAuth =
  | { surface: 'base'; method: 'api_key' | 'workspace_key'; credentialId: string; workspace: Workspace }
  | { surface: 'management'; tokenId: string; actor: ActorColumn | null };
export type BaseAuth = Extract<RequestAuth, { surface: 'base' }>;

declare module 'fastify' {
  interface FastifyRequest {
    auth: RequestAuth;
    /**
     * The workspace the request acts on: the credential's (base) or the `{workspace}` path
     * segment's (management). Set by the hook of every subtree whose routes act on one, which
     * answers 404 when there is none; the management routes outside that subtree never read it.
     */
    workspace: Workspace;
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

/** The Actor recorded on changes: the service token's owner; null on the base surface. */
export const actorOf = (request: FastifyRequest): ActorColumn | null =>
  request.auth?.surface === 'management' ? request.auth.actor : null;

export const authenticationFailed = (message: string) =>
  new HttpError(401, message, null, { errorCode: 'authentication_failed', type: 'AuthenticationFailed' });
