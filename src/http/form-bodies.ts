import type { FastifyInstance } from 'fastify';

/**
 * Parses `application/x-www-form-urlencoded` bodies in the calling plugin's scope only (the preference pages' forms,
 * vendors' status callbacks), at most `bodyLimit` bytes, into `{name: value}` (a repeated name keeps its last value).
 * Any other route meets the app's own parsers and limits.
 */
export function parseFormBodies(app: FastifyInstance, bodyLimit: number) {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
}
