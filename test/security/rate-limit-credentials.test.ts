import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { SHORT_ERROR_KEYS, keysOf } from '../support/load.js';
import { signedHeaders } from '../support/signing.js';

const MAX = 4;

/** The budget is the authenticated credential's, whatever the Authorization header looks like each time. */
describe('rate limiting keyed by the authenticated credential', () => {
  const t = useTestApp({ RATE_LIMIT_MAX: String(MAX), RATE_LIMIT_WINDOW_MS: '60000' });
  let address = 0;
  const freshAddress = () => `198.51.100.${(address += 1)}`;
  const get = (url: string, headers: Record<string, string>, remoteAddress: string) =>
    t().app.inject({ method: 'GET', url, headers, remoteAddress });

  it('every made-up API key from one address spends that address’s one budget', async () => {
    const from = freshAddress();
    const statuses = [];
    for (let i = 0; i <= MAX; i += 1) {
      statuses.push((await get('/v1/user/x/', { authorization: `Bearer hak_made_up_${i}` }, from)).statusCode);
    }
    expect(statuses).toEqual([...Array(MAX).fill(401), 429]);
    const throttled = await get('/v1/user/x/', { authorization: 'Bearer hak_yet_another' }, from);
    expect(throttled.statusCode).toBe(429);
    expect(keysOf(throttled.json())).toEqual(SHORT_ERROR_KEYS);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address has a budget of its own.
    expect((await get('/v1/user/x/', { authorization: 'Bearer hak_made_up' }, freshAddress())).statusCode).toBe(401);
  });

  it('made-up signatures for a real workspace key spend the address’s budget, not a fresh one each', async () => {
    const ws = await createWorkspaceFixture(t());
    const from = freshAddress();
    const statuses = [];
    for (let i = 0; i <= MAX; i += 1) {
      statuses.push((await get('/v1/user/x/', { authorization: `${ws.workspaceKey}:forged${i}` }, from)).statusCode);
    }
    expect(statuses).toEqual([...Array(MAX).fill(401), 429]);
  });

  it('a signing pair has one budget, though every request carries a new signature, from any address', async () => {
    const ws = await createWorkspaceFixture(t());
    const statuses = [];
    for (let i = 0; i <= MAX; i += 1) {
      const url = `/v1/user/x-${i}/`;
      const headers = signedHeaders({
        key: ws.workspaceKey,
        secret: ws.workspaceSecret,
        method: 'GET',
        url,
        contentType: '',
        date: new Date(Date.now() - i * 1000).toUTCString(),
      });
      statuses.push((await get(url, headers, freshAddress())).statusCode);
    }
    expect(statuses).toEqual([...Array(MAX).fill(404), 429]);
    // The workspace's API key is another credential, with its own budget.
    expect((await get('/v1/user/x/', ws.base, freshAddress())).statusCode).toBe(404);
  });

  it('a flood of made-up keys from an address leaves a real key from the same address served', async () => {
    const ws = await createWorkspaceFixture(t());
    const from = freshAddress();
    for (let i = 0; i <= MAX; i += 1) await get('/v1/user/x/', { authorization: `Bearer hak_flood_${i}` }, from);
    expect((await get('/v1/user/x/', { authorization: 'Bearer hak_flood_more' }, from)).statusCode).toBe(429);
    expect((await get('/v1/user/x/', ws.base, from)).statusCode).toBe(404);
  });

  it('counts requests with bad bodies too: validation comes after the budget', async () => {
    const ws = await createWorkspaceFixture(t());
    const statuses = [];
    for (let i = 0; i <= MAX; i += 1) {
      const response = await t().app.inject({
        method: 'POST',
        url: '/v1/subscriber_list/~/dry_run/',
        headers: ws.base,
        payload: { query: 12 },
        remoteAddress: freshAddress(),
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([...Array(MAX).fill(400), 429]);
  });
});
