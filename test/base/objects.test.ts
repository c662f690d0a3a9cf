import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

const active = (value: string) => ({ value, status: 'active', perma_status: 'active' });

describe('objects', () => {
  const t = useTestApp();
  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });
  const countOf = async (ws: WorkspaceFixture, path: string) =>
    (await call(ws, 'GET', `/v1/object/${path}/`)).json().subscriptions_count;

  it('upserts (201) with properties and channels like a user, keeping created_at', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await call(ws, 'POST', '/v1/object/teams/frontend/', {
      name: 'Frontend',
      $email: ['FE@x.com'],
      $slack: { channel_id: 'C1', access_token: 'xoxb' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      object_type: 'teams',
      id: 'frontend',
      subscriptions_count: 0,
      properties: { name: 'Frontend' },
      created_at: expect.any(String),
      updated_at: created.json().created_at,
      $email: [active('fe@x.com')],
      $slack: [{ value: { channel_id: 'C1', access_token: 'xoxb' }, status: 'active', perma_status: 'active' }],
    });
    const again = await call(ws, 'POST', '/v1/object/teams/frontend/', { lead: 'Ada', $email: 'fe@x.com' });
    expect(again.json()).toMatchObject({
      properties: { name: 'Frontend', lead: 'Ada' },
      $email: [active('fe@x.com')],
      created_at: created.json().created_at,
    });
    expect((await call(ws, 'GET', '/v1/object/teams/frontend/')).json()).toEqual(again.json());
  });

  it('edits with the user operations (200), and answers unknown objects with 404 short', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/object/projects/p%2F1/', { visits: 1 });
    const edited = await call(ws, 'PATCH', '/v1/object/projects/p%2F1/', {
      operations: [{ $add: { visits: 2 }, $append: { $sms: '+14155550123' } }, { $unset: ['nothing'] }],
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ id: 'p/1', properties: { visits: 3 }, $sms: [active('+14155550123')] });
    const bad = await call(ws, 'PATCH', '/v1/object/projects/p%2F1/', {
      operations: [{ $append: { $whatsapp: '123' } }],
    });
    expect(bad.json()).toEqual({
      code: 400,
      message: "operations[0].$append.$whatsapp: '123' is not an E.164 phone number (like +14155550123)",
    });
    for (const [method, payload] of [['GET'], ['PATCH', { operations: [] }], ['DELETE']] as const) {
      const response = await call(ws, method, '/v1/object/projects/ghost/', payload);
      expect(response.statusCode, method).toBe(404);
      expect(response.json()).toEqual({ code: 404, message: "object 'projects/ghost' not found" });
    }
  });

  it('validates object_type: lowercase letters, digits, _ or -, at most 64', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const type of ['Teams', 'team%20s', 'a'.repeat(65), 't.x']) {
      const response = await call(ws, 'POST', `/v1/object/${type}/x/`, {});
      expect(response.statusCode, type).toBe(400);
      expect(Object.keys(response.json())).toEqual(['code', 'message']);
    }
    expect((await call(ws, 'POST', `/v1/object/${'a'.repeat(64)}/x/`, {})).statusCode).toBe(201);
    expect((await call(ws, 'POST', '/v1/object/dept_2-b/x/', {})).statusCode).toBe(201);
  });

  it('lists objects of one type with cursors', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const id of ['a', 'b', 'c']) await call(ws, 'POST', `/v1/object/teams/${id}/`, {});
    await call(ws, 'POST', '/v1/object/orgs/z/', {});
    const page1 = (await call(ws, 'GET', '/v1/object/teams/?limit=2')).json();
    expect(page1.results.map((o: { id: string }) => o.id)).toEqual(['a', 'b']);
    expect(page1.meta).toMatchObject({ count: 3, limit: 2, has_next: true, has_prev: false });
    const page2 = (await call(ws, 'GET', `/v1/object/teams/?limit=2&after=${page1.meta.after}`)).json();
    expect(page2.results.map((o: { id: string }) => o.id)).toEqual(['c']);
    expect(page2.meta).toMatchObject({ has_next: false, has_prev: true });
  });

  it('deletes an object with its subscriptions both ways, fixing every count', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const path of ['orgs/o1', 'teams/t1', 'teams/t2']) await call(ws, 'POST', `/v1/object/${path}/`, {});
    await call(ws, 'POST', '/v1/object/orgs/o1/subscription/', {
      recipients: [{ object_type: 'teams', id: 't1' }, { object_type: 'teams', id: 't2' }, 'u0'],
    });
    await call(ws, 'POST', '/v1/object/teams/t1/subscription/', { recipients: ['u1', 'u2'] });
    expect(await countOf(ws, 'orgs/o1')).toBe(3);
    expect((await call(ws, 'DELETE', '/v1/object/teams/t1/')).statusCode).toBe(204);
    expect(await countOf(ws, 'orgs/o1')).toBe(2);
    expect((await call(ws, 'GET', '/v1/user/u1/subscribed_to/object/')).json().results).toEqual([]);
    expect((await call(ws, 'GET', '/v1/user/u1/')).statusCode).toBe(200);
    expect((await call(ws, 'DELETE', '/v1/bulk/object/teams/', { object_ids: ['t2', 'ghost'] })).statusCode).toBe(204);
    expect(await countOf(ws, 'orgs/o1')).toBe(1);
    expect((await call(ws, 'DELETE', '/v1/bulk/object/teams/', { object_ids: [] })).statusCode).toBe(400);
  });

  it('keeps subscriptions_count right when users are deleted', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const path of ['teams/a', 'teams/b']) await call(ws, 'POST', `/v1/object/${path}/`, {});
    await call(ws, 'POST', '/v1/object/teams/a/subscription/', { recipients: ['u1', 'u2', 'u3'] });
    await call(ws, 'POST', '/v1/object/teams/b/subscription/', { recipients: ['u1', 'u3'] });
    await call(ws, 'DELETE', '/v1/user/u1/');
    expect([await countOf(ws, 'teams/a'), await countOf(ws, 'teams/b')]).toEqual([2, 1]);
    await call(ws, 'DELETE', '/v1/bulk/user/', { distinct_ids: ['u2', 'u3'] });
    expect([await countOf(ws, 'teams/a'), await countOf(ws, 'teams/b')]).toEqual([0, 0]);
  });
});
