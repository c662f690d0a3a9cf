import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashToken } from '../auth/tokens.js';
import { HttpError } from '../errors.js';

/** Whose budget a request spends: its credential (hashed: the key never sits in memory as such), else its address. */
const budgetOf = (request: FastifyRequest) => {
  const authorization = request.headers.authorization;
  return authorization ? `credential:${hashToken(authorization)}` : `ip:${request.ip}`;
};

/**
 * Rate limiting (ours): RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_MS per credential, counted
 * in this process; 0 turns it off. Over budget → 429 in the route's error shape, with Retry-After
 * and the IETF draft RateLimit-Limit/-Remaining/-Reset headers. Routes opt out with
 * `config: { rateLimit: false }` (health checks). Must be registered before the routes.
 */
export async function registerRateLimit(app: FastifyInstance, options: { max: number; windowMs: number }) {
  if (options.max === 0) return;
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    keyGenerator: budgetOf,
    enableDraftSpec: true,
    errorResponseBuilder: (_request, context) =>
      new HttpError(429, `rate limit exceeded: at most ${context.max} requests per ${options.windowMs / 1000} s per credential; retry in ${context.after}`),
  });
}
