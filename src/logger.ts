import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';

/** Fields whose value never reaches a log line, at any depth of a logged object. */
const CENSORED_FIELDS = new Set([
  'authorization',
  'cookie',
  ...['key', 'secret', 'token', 'api_key', 'service_token', 'workspace_key', 'workspace_secret', 'password'],
]);
const CENSORED = '[redacted]';
const MAX_DEPTH = 8;

/**
 * A copy of a logged object with every credential-named field censored; the caller's object is
 * left as it was, and an object without such fields is returned as is. Only plain objects and
 * arrays are walked: a Request, Reply or Error goes to its serializer, which picks safe fields.
 * Not pino's `redact`: with wildcard paths (`*.secret`, `*.*.secret`) it cost 17.8 µs per line
 * against 1.9 µs without, about 7 % of a cheap request (BENCHMARKS.md); this walk costs well under 1 µs.
 */
export function censorCredentials(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const censored = censorCredentials(item, depth + 1);
      if (censored !== item) (copy ??= [...value])[index] = censored;
    });
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, child] of Object.entries(value)) {
    const censored =
      CENSORED_FIELDS.has(key.toLowerCase()) && child != null ? CENSORED : censorCredentials(child, depth + 1);
    if (censored !== child) (copy ??= { ...value })[key] = censored;
  }
  return copy ?? value;
}

/**
 * The legacy trigger and broadcast paths carry the workspace key (`/{workspace_key}/trigger/`): logged
 * without it. Told by the route the request matched (with or without the trailing slash, with a
 * query string), and by the path's shape before routing or when no route matched.
 */
const KEY_IN_PATH = /^\/[^/?]+\/(trigger|broadcast)(?=[/?]|$)/i;
const FIRST_SEGMENT = /^\/[^/?]*/;
const KEY_PARAM = ':workspace_key';
/** A workspace key by its shape (`randomToken('wsk_', …)`, src/repositories/workspace-keys.ts), wherever a path that matched no route put it. */
const KEY_SHAPED = /\bwsk_[A-Za-z0-9_-]+/g;
const loggedUrl = (url: string, route: string | undefined) =>
  route?.startsWith(`/${KEY_PARAM}`)
    ? url.replace(FIRST_SEGMENT, '/[workspace_key]')
    : url.replace(KEY_IN_PATH, '/[workspace_key]/$1').replace(KEY_SHAPED, '[workspace_key]');

/**
 * What a log line says of a request: its method, URL (without a key in the path), host and the
 * client's address, never the object itself, whose raw form holds the headers (Authorization among
 * them, where no field name says so). A request whose client has gone has no address any more
 * (`ip` undefined): it was once passed through whole, API key and body with it. A plain object
 * logged as `req` is left to the censoring formatter.
 */
function serializeRequest(request: unknown): Record<string, unknown> {
  if (request === null || typeof request !== 'object') return { value: request };
  const prototype = Object.getPrototypeOf(request);
  if (prototype === Object.prototype || prototype === null) return request as Record<string, unknown>;
  const { method, url, host, ip, routeOptions } = request as Partial<
    Pick<FastifyRequest, 'method' | 'url' | 'host' | 'ip' | 'routeOptions'>
  >;
  return {
    method: typeof method === 'string' ? method : undefined,
    url: typeof url === 'string' ? loggedUrl(url, routeOptions?.url) : undefined,
    host: typeof host === 'string' ? host : undefined,
    remoteAddress: typeof ip === 'string' ? ip : undefined,
  };
}

export function loggerOptions(level: string, stream?: DestinationStream): FastifyServerOptions['logger'] {
  if (level === 'silent' && !stream) return false;
  return {
    level,
    serializers: { req: serializeRequest },
    formatters: { log: (object) => censorCredentials(object) as Record<string, unknown> },
    ...(stream ? { stream } : {}),
  };
}

/**
 * One line per request at info, when it completes, carrying what Fastify's two default lines did
 * (method and URL, status, time): logging is a visible share of a cheap request's cost. The
 * arrival is logged at debug.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest) {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
