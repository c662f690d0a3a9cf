import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { recordFigures } from '../support/figures.js';
import { FULL_ERROR_KEYS, keysOf, SHORT_ERROR_KEYS, sleep } from '../support/load.js';
import { problemWith, routeCatalogue } from '../support/routes.js';

const MAX = 5;
const WINDOW_MS = 1500;

describe('rate limiting (ours): per credential, configurable', () => {
  const t = useTestApp({ RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) });
  const figures = { limit: MAX, window_ms: WINDOW_MS, requests: 0, throttled: 0 };
  const get = async (url: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') => {
    figures.requests += 1;
    const response = await t().app.inject({ method: 'GET', url, headers, remoteAddress });
    if (response.statusCode === 429) figures.throttled += 1;
    return response;
  };

  it('is on by default in production (6,000 per minute per credential) and off with 0', () => {
    const defaults = loadConfig({});
    expect([defaults.RATE_LIMIT_MAX, defaults.RATE_LIMIT_WINDOW_MS]).toEqual([6000, 60_000]);
    expect(loadConfig({ RATE_LIMIT_MAX: '0' }).RATE_LIMIT_MAX).toBe(0);
    expect(() => loadConfig({ RATE_LIMIT_MAX: '-1' })).toThrow(/RATE_LIMIT_MAX/);
  });

  it('answers the request over the budget with 429 in the route’s error shape, Retry-After and RateLimit-* headers', async () => {
    const ws = await createWorkspaceFixture(t());
    const url = `/management/v1/${ws.slug}/ws_key/`;
    for (let i = 0; i < MAX; i += 1) {
      const response = await get(url, ws.management);
      expect(response.statusCode).toBe(200);
      expect(response.headers['ratelimit-limit']).toBe(String(MAX));
      expect(response.headers['ratelimit-remaining']).toBe(String(MAX - i - 1));
    }
    const throttled = await get(url, ws.management);
    expect(throttled.statusCode).toBe(429);
    expect(keysOf(throttled.json())).toEqual(FULL_ERROR_KEYS);
    expect(throttled.json()).toMatchObject({ code: 429, error_code: 'throttled', type: 'Throttled' });
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(throttled.headers['retry-after'])).toBeLessThanOrEqual(Math.ceil(WINDOW_MS / 1000));
    expect(throttled.headers['ratelimit-remaining']).toBe('0');
    expect(throttled.headers['ratelimit-reset']).toBeDefined();
    // The 429 is documented on the route, in its shape.
    const route = (await routeCatalogue(t().app)).find(
      (r) => r.path === '/management/v1/{workspace}/ws_key/' && r.method === 'GET',
    )!;
    expect(problemWith(route, throttled)).toBeUndefined();

    // The user routes answer in the short shape, their 429 too.
    for (let i = 0; i < MAX; i += 1) expect((await get('/v1/user/limited/', ws.base)).statusCode).toBe(404);
    const short = await get('/v1/user/limited/', ws.base);
    expect(short.statusCode).toBe(429);
    expect(keysOf(short.json())).toEqual(SHORT_ERROR_KEYS);
  });

  it('counts per credential: another workspace’s key is unaffected; callers without one share their address’s budget', async () => {
    const [a, b] = [await createWorkspaceFixture(t()), await createWorkspaceFixture(t())];
    for (let i = 0; i <= MAX; i += 1) await get('/v1/user/x/', a.base);
    expect((await get('/v1/user/x/', a.base)).statusCode).toBe(429);
    expect((await get('/v1/user/x/', b.base)).statusCode).toBe(404);
    const anonymous = [];
    for (let i = 0; i <= MAX; i += 1) anonymous.push((await get('/v1/user/x/', {}, '192.0.2.7')).statusCode);
    expect(anonymous).toEqual([...Array(MAX).fill(401), 429]);
    expect((await get('/v1/user/x/', {}, '192.0.2.8')).statusCode).toBe(401);
  });

  it('never limits the health checks, and gives the budget back after the window', async () => {
    for (let i = 0; i < MAX * 3; i += 1) expect((await get('/healthz')).statusCode).toBe(200);
    const ws = await createWorkspaceFixture(t());
    for (let i = 0; i <= MAX; i += 1) await get('/v1/user/x/', ws.base);
    expect((await get('/v1/user/x/', ws.base)).statusCode).toBe(429);
    await sleep(WINDOW_MS + 100);
    expect((await get('/v1/user/x/', ws.base)).statusCode).toBe(404);
    recordFigures('rate-limit', figures);
  });
});
