import { signedHeaders } from './signing.js';

/**
 * Whether the app verifies signed workspace-key requests (issue #4). Without it, the base surface
 * answers a signed request with its Bearer-only 401; with it, a correctly signed request is never
 * refused with that message (and a wrong signer fails the tests that use it, loudly).
 */
export async function signedAuthSupported(
  inject: (options: {
    method: string;
    url: string;
    headers: Record<string, string>;
  }) => Promise<{ statusCode: number; body: string }>,
  pair: { key: string; secret: string },
): Promise<boolean> {
  const url = '/v1/user/signature-probe/';
  const answer = await inject({ method: 'GET', url, headers: signedHeaders({ ...pair, method: 'GET', url }) });
  return !(answer.statusCode === 401 && answer.body.includes('expected \\"Bearer <API_KEY>\\"'));
}
