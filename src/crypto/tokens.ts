import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A high-entropy secret (256 bits unless told), URL-safe, with a prefix that says what it is. */
export const randomToken = (prefix: string, bytes = 32) => `${prefix}${randomBytes(bytes).toString('base64url')}`;

/** A Standard Webhooks signing secret: `whsec_` and 32 random bytes in standard base64, as its libraries read it. */
export const webhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** Tokens are stored only as this hash; their entropy makes a plain SHA-256 sufficient. */
export const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** What a list may show of a key: its prefix and last four characters. */
export const maskToken = (token: string) => `${token.slice(0, 8)}${'*'.repeat(16)}${token.slice(-4)}`;

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
