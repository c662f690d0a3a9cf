import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Called by the surfaces' auth hooks when a request fails to authenticate: spends the client
     * address's budget and answers 429 once it is gone. A no-op when rate limiting is off.
     */
    limitFailedAuthentication(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  }
}

/**
 * Whose budget a request spends: the credential it authenticated with (API key id, signing pair
 * id, service token id), else its address. Never the raw Authorization value: a made-up key or a
 * fresh signature would get a budget of its own with every request.
 */
const budgetOf = (request: FastifyRequest) => {
  const auth = request.auth;
  if (auth?.surface === 'base') return `credential:${auth.method}:${auth.credentialId}`;
  if (auth?.surface === 'management') return `credential:service_token:${auth.tokenId}`;
  return `ip:${request.ip}`;
};

const tooMany = (max: number, windowMs: number, after: string) =>
  new HttpError(
    429,
    `rate limit exceeded: at most ${max} requests per ${windowMs / 1000} s per credential; retry in ${after}`,
  );

/**
 * Rate limiting (ours): RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per credential, counted
 * in this process; 0 turns it off. Counted after authentication (preValidation, after the
 * surfaces' auth hooks), so the budget is the credential's; requests that fail to authenticate
 * spend their address's one budget. Over budget → 429 in the route's error shape, with
 * Retry-After and the IETF draft RateLimit-Limit/-Remaining/-Reset headers. Routes opt out with
 * `config: { rateLimit: false }` (health checks). Must be registered before the routes.
 */
export async function registerRateLimit(app: FastifyInstance, options: { max: number; windowMs: number }) {
  if (options.max === 0) {
    app.decorate('limitFailedAuthentication', async () => {});
    return;
  }
  await app.register(rateLimit, {
    global: true,
    hook: 'preValidation',
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: budgetOf,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) => tooMany(context.max, options.windowMs, context.after),
  });
  const failures = app.createRateLimit({ keyGenerator: (request) => `ip:${request.ip}` });
  app.decorate('limitFailedAuthentication', async (request: FastifyRequest, reply: FastifyReply) => {
    const outcome = await failures(request);
    if (outcome.isAllowed || !outcome.isExceeded) return;
    reply.header('retry-after', String(outcome.ttlInSeconds));
    reply.header('ratelimit-limit', String(outcome.max));
    reply.header('ratelimit-remaining', '0');
    reply.header('ratelimit-reset', String(outcome.ttlInSeconds));
    throw tooMany(outcome.max, options.windowMs, `${outcome.ttlInSeconds} seconds`);
  });
}
