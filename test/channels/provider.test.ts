import { describe, expect, it } from 'vitest';
import { outcomeFromHttpStatus, outcomeFromNetworkError, parseRetryAfter } from '../../src/channels/provider.js';

describe('provider outcomes', () => {
  it('treats 2xx as sent, 429/408/5xx as retry and other 4xx as a permanent failure', () => {
    expect(outcomeFromHttpStatus(204, null, 'ok')).toEqual({ kind: 'sent', providerResponse: 'ok' });
    expect(outcomeFromHttpStatus(503, null, 'down')).toEqual({
      kind: 'retry',
      reason: 'provider answered 503',
      providerResponse: 'down',
    });
    expect(outcomeFromHttpStatus(429, '7', null)).toEqual({
      kind: 'retry',
      reason: 'provider answered 429',
      retryAfterMs: 7000,
      providerResponse: null,
    });
    expect(outcomeFromHttpStatus(408, null, null).kind).toBe('retry');
    expect(outcomeFromHttpStatus(400, '5', 'bad')).toEqual({
      kind: 'failed',
      reason: 'provider answered 400',
      providerResponse: 'bad',
    });
    expect(outcomeFromHttpStatus(404, null, null).kind).toBe('failed');
  });

  it('reads Retry-After as seconds or an HTTP date, capped at five minutes', () => {
    const now = Date.parse('2026-11-26T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('Thu, 26 Nov 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('86400', now)).toBe(300_000);
    expect(parseRetryAfter('-5', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('treats network errors as transient and keeps their code', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(outcomeFromNetworkError(reset)).toEqual({ kind: 'retry', reason: 'ECONNRESET: socket hang up' });
    expect(outcomeFromNetworkError(new Error('boom'))).toEqual({ kind: 'retry', reason: 'boom' });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(outcomeFromNetworkError(new TypeError('fetch failed', { cause: refused }))).toEqual({
      kind: 'retry',
      reason: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
    });
  });
});
