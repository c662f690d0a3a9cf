import type { FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';

/** Paths pino censors wherever a credential could appear in a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  ...['key', 'secret', 'token', 'api_key', 'service_token', 'workspace_key', 'workspace_secret', 'password'].flatMap((field) => [
    field,
    `*.${field}`,
    `*.*.${field}`,
  ]),
];

export function loggerOptions(level: string, stream?: DestinationStream): FastifyServerOptions['logger'] {
  if (level === 'silent' && !stream) return false;
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(stream ? { stream } : {}),
  };
}
