import { createHash } from 'node:crypto';

/**
 * A job id derived from what the job is for: pg-boss inserts jobs with ON CONFLICT DO NOTHING, so a
 * step that runs twice (processing is at-least-once) enqueues its follow-up once.
 */
export function jobId(...parts: (string | number)[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  // A UUID's shape, version 8 (custom), RFC 4122 variant.
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
