import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

describe('GET /v1/user/{distinct_id}/', () => {
  const t = useTestApp();

  it('returns the User record with channel arrays only where there are entries', async () => {
    const ws = await createWorkspaceFixture(t());
    await t()
      .db.insertInto('users')
      .values({
        workspace_id: ws.workspaceId,
        distinct_id: 'Alice/ü @x',
        properties: JSON.stringify({ $locale: 'fr_FR', $timezone: 'Europe/Paris', plan: 'pro' }),
        channels: JSON.stringify({
          $email: [{ value: 'a@x.com', status: 'active', perma_status: 'active' }],
          $sms: [],
        }),
      })
      .execute();
    const response = await t().app.inject({
      method: 'GET',
      url: `/v1/user/${encodeURIComponent('Alice/ü @x')}/`,
      headers: ws.base,
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      distinct_id: 'Alice/ü @x',
      properties: { $locale: 'fr_FR', $timezone: 'Europe/Paris', plan: 'pro' },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/),
      updated_at: expect.stringMatching(/\+00:00$/),
      $email: [{ value: 'a@x.com', status: 'active', perma_status: 'active' }],
    });
  });

  it('treats distinct_ids as case-sensitive', async () => {
    const ws = await createWorkspaceFixture(t());
    await t().db.insertInto('users').values({ workspace_id: ws.workspaceId, distinct_id: 'Bob' }).execute();
    expect((await t().app.inject({ method: 'GET', url: '/v1/user/bob/', headers: ws.base })).statusCode).toBe(404);
    expect((await t().app.inject({ method: 'GET', url: '/v1/user/Bob', headers: ws.base })).statusCode).toBe(200);
  });

  it('answers an unknown user with 404 in the short shape', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({ method: 'GET', url: '/v1/user/ghost/', headers: ws.base });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ code: 404, message: "user [distinct_id: 'ghost'] not found" });
  });

  it('answers an invalid distinct_id with 400 in the short shape', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const id of ['%20%20%20', 'x'.repeat(257)]) {
      const response = await t().app.inject({ method: 'GET', url: `/v1/user/${id}/`, headers: ws.base });
      expect(response.statusCode, id).toBe(400);
      expect(Object.keys(response.json()).sort()).toEqual(['code', 'message']);
    }
  });
});
