import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/app.js';
import { FULL_ERROR_KEYS, keysOf } from '../support/load.js';

describe('a handler that never finishes', () => {
  it('is answered 503 in the full shape after twice REQUEST_TIMEOUT_MS, with Retry-After', async () => {
    const t = await buildTestApp(
      { REQUEST_TIMEOUT_MS: '1000' },
      {
        beforeReady: (app) => app.get('/test-hang', { schema: { hide: true } }, () => new Promise(() => {})),
      },
    );
    try {
      const started = Date.now();
      const response = await t.app.inject({ method: 'GET', url: '/test-hang' });
      const elapsed = Date.now() - started;
      expect(response.statusCode).toBe(503);
      expect(keysOf(response.json())).toEqual(FULL_ERROR_KEYS);
      expect(response.json()).toMatchObject({ code: 503, error_code: 'service_unavailable' });
      expect(response.headers['retry-after']).toBe('1');
      expect(elapsed).toBeGreaterThanOrEqual(1900);
      expect(elapsed).toBeLessThan(6000);
    } finally {
      await t.close();
    }
  });
});
