import type { FastifyInstance } from 'fastify';
import { fullErrors, shortErrors } from '../schemas/common.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

type RouteSchema = {
  hide?: boolean;
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  headers?: unknown;
  response?: Record<string, unknown>;
};

/**
 * Documents on every route the errors the framework answers with before or around its handler,
 * in the route's own error shape: 400 (malformed or invalid input), 413 (body over BODY_LIMIT),
 * 415 (not JSON), 429 (rate limit), 503 (database unavailable, handler timeout, shutting down).
 * A status the route documents itself is left as it is. Must be added before the routes.
 */
export function documentFrameworkErrors(app: FastifyInstance, options: { rateLimited: boolean }) {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as RouteSchema | undefined;
    if (!schema?.response || schema.hide) return;
    const takesBody = [route.method].flat().some((method) => BODY_METHODS.has(method));
    const config = route.config as { errorShape?: string; rateLimit?: unknown } | undefined;
    const statuses = [503];
    if (takesBody || schema.params || schema.querystring || schema.body || schema.headers) statuses.push(400);
    if (takesBody) statuses.push(413, 415);
    if (options.rateLimited && config?.rateLimit !== false) statuses.push(429);
    const missing = statuses.filter((status) => !(status in schema.response!) && !(String(status) in schema.response!));
    const errors = config?.errorShape === 'short' ? shortErrors : fullErrors;
    schema.response = { ...schema.response, ...errors(...missing) };
  });
}
