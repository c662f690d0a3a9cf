import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { segmentDatabaseUrl } from '../../src/segments/connection.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

describe('where segment queries log in', () => {
  it('derives herald_segments from DATABASE_URL, without its password', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://herald:s3cret@db.internal:5433/herald?sslmode=require',
      SECRET_KEY: 'k'.repeat(32),
    });
    expect(segmentDatabaseUrl(config)).toBe('postgres://herald_segments@db.internal:5433/herald?sslmode=require');
  });

  it('takes SEGMENT_DATABASE_URL only for herald_segments, and never echoes it', () => {
    const given = 'postgres://herald_segments:pw@db/herald';
    expect(segmentDatabaseUrl(loadConfig({ SEGMENT_DATABASE_URL: given }))).toBe(given);
    const other = 'postgres://postgres:topsecret@db/herald';
    expect(() => loadConfig({ SEGMENT_DATABASE_URL: other })).toThrow(
      'Invalid configuration: SEGMENT_DATABASE_URL must log in as herald_segments, the role segment queries are confined to',
    );
    let message = '';
    try {
      loadConfig({ SEGMENT_DATABASE_URL: 'mysql://root:topsecret@db' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/SEGMENT_DATABASE_URL must be/);
    expect(message).not.toContain('topsecret');
  });
});

describe.runIf(!!process.env.DATABASE_URL)('a segment role that cannot log in', () => {
  const t = useTestApp({ SEGMENT_DATABASE_URL: 'postgres://herald_segments@127.0.0.1:1/nowhere' });

  it('answers 503 in the full shape and logs the cause, while the rest of Herald works', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({
      method: 'POST',
      url: '/v1/subscriber_list/~/dry_run/',
      headers: ws.base,
      payload: { query: 'select distinct_id from users' },
    });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      code: 503,
      error_code: 'service_unavailable',
      type: 'ServiceUnavailable',
      message: 'segment queries are unavailable: the database refused the segment role; see docs/segments.md',
      detail: null,
    });
    expect(t().logs.some((line) => line.msg === 'segment queries: cannot connect as herald_segments')).toBe(true);
    const user = await t().app.inject({ method: 'POST', url: '/v1/user/u1/', headers: ws.base, payload: {} });
    expect(user.statusCode).toBe(201);
  });
});
