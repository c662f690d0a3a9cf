import { createHash, createHmac } from 'node:crypto';

/**
 * The Authorization header the official backend SDKs send (compat.md): `<key>:<signature>`, the
 * signature being base64(HMAC-SHA256(secret, METHOD\nmd5(body)\nContent-Type\nDate\npath?query)).
 */
export function signedHeaders(
  pair: { key: string; secret: string },
  request: { method: string; url: string; payload?: string; contentType?: string; date?: string },
): Record<string, string> {
  const date = request.date ?? new Date().toUTCString();
  const contentType = request.payload === undefined ? '' : (request.contentType ?? 'application/json');
  const bodyMd5 = request.payload === undefined ? '' : createHash('md5').update(request.payload, 'utf8').digest('hex');
  const text = [request.method, bodyMd5, contentType, date, request.url].join('\n');
  const signature = createHmac('sha256', pair.secret).update(text, 'utf8').digest('base64');
  return { authorization: `${pair.key}:${signature}`, date, ...(contentType ? { 'content-type': contentType } : {}) };
}

/**
 * Whether the app verifies signed workspace-key requests yet (issue #4). Until it does, the base
 * surface answers a signed request with the Bearer-only 401; once it does, a correctly signed
 * request is never refused with that message (a wrong signer fails the tests that use it, loudly).
 */
export async function signedAuthSupported(
  inject: (options: { method: string; url: string; headers: Record<string, string> }) => Promise<{ statusCode: number; body: string }>,
  pair: { key: string; secret: string },
): Promise<boolean> {
  const url = '/v1/user/signature-probe/';
  const answer = await inject({ method: 'GET', url, headers: signedHeaders(pair, { method: 'GET', url }) });
  return !(answer.statusCode === 401 && answer.body.includes('expected \\"Bearer'));
}
