import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

/** JSON carries its own types: a body's number is never read as a string, nor a string as a number. */
describe('request bodies are validated without type coercion', () => {
  const t = useTestApp();
  const post = async (url: string, payload: unknown) => {
    const ws = await createWorkspaceFixture(t());
    return t().app.inject({ method: 'POST', url, headers: ws.base, payload: payload as object });
  };

  it('refuses a segment query that is not a string (a number, an array, a boolean, null)', async () => {
    for (const query of [12, ['select distinct_id from users'], true, null]) {
      const response = await post('/v1/subscriber_list/~/dry_run/', { query });
      expect(response.statusCode, JSON.stringify(query)).toBe(400);
      expect(response.json().detail).toEqual({ query: 'the query must be a string' });
    }
  });

  it('refuses an event name given as a number and a time given as a string', async () => {
    const name = await post('/event/', { event: 123, distinct_id: 'u1' });
    expect(name.statusCode).toBe(400);
    expect(name.json().detail).toEqual({ event: 'expected string' });
    const time = await post('/event/', { event: 'e', distinct_id: 'u1', $time: '1700000000000' });
    expect(time.statusCode).toBe(400);
    expect(time.json().detail).toEqual({ $time: 'expected number' });
    const scalar = await post('/event/', [{ event: 'e', distinct_id: 12 }]);
    expect(scalar.statusCode).toBe(400);
  });

  it('still reads numbers from the query string, where everything is text', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({ method: 'GET', url: '/v1/user/?limit=5', headers: ws.base });
    expect(response.statusCode).toBe(200);
    expect(response.json().meta.limit).toBe(5);
  });

  it('refuses Infinity and NaN where the query string takes a number (no 500 from the serializer)', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const url of [
      '/v1/template/?is_archived=true&limit=Infinity',
      '/v1/template/?offset=NaN',
      '/v1/user/?limit=Infinity',
    ]) {
      const response = await t().app.inject({ method: 'GET', url, headers: ws.base });
      expect(response.statusCode, url).toBe(400);
    }
  });
});
