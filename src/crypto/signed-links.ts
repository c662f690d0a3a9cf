import { constantTimeEqual } from './tokens.js';

/** What signs a link: the secret box's HMAC, under a key of its own (secret-box.ts). */
export interface LinkSigner {
  sign(text: string): string;
}

/**
 * A signed, expiring link token: `base64url(JSON payload).tag`. The payload is readable by whoever
 * holds the link (it names no secret); the tag makes it unforgeable and `exp` (seconds) bounds it.
 */
export function signLinkToken(signer: LinkSigner, payload: Record<string, unknown> & { exp: number }): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${signer.sign(body)}`;
}

/** The payload of a token this signer made and that has not expired; undefined for anything else. */
export function openLinkToken(signer: LinkSigner, token: string, nowMs: number): Record<string, unknown> | undefined {
  const [body, tag, extra] = token.split('.');
  if (!body || !tag || extra !== undefined || !constantTimeEqual(signer.sign(body), tag)) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    return typeof payload.exp === 'number' && payload.exp * 1000 > nowMs ? payload : undefined;
  } catch {
    return undefined;
  }
}
