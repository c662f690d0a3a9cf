import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

describe('subscriptions', () => {
  const t = useTestApp();
  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });
  const subscribe = (ws: WorkspaceFixture, path: string, body: unknown) =>
    call(ws, 'POST', `/v1/object/${path}/subscription/`, body);
  const realCount = async (ws: WorkspaceFixture, type: string, id: string) => {
    const parent = await t()
      .db.selectFrom('objects')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .where('object_type', '=', type)
      .where('object_id', '=', id)
      .executeTakeFirstOrThrow();
    const row = await t()
      .db.selectFrom('subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('object_id', '=', parent.id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  it('subscribes users in recipient order, with the parent and its count after the call', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/object/teams/t1/', {});
    await call(ws, 'POST', '/v1/user/known/', { name: 'K' });
    const response = await subscribe(ws, 'teams/t1', {
      recipients: [
        'new-user',
        {
          distinct_id: 'inline',
          $email: ['in@x.com'],
          $sms: ['+14155550123'],
          $locale: 'fr_FR',
          $timezone: 'Europe/Paris',
          $slack: [{ email: 'in@x.com', access_token: 'xoxb' }],
        },
        'known',
      ],
      properties: { role: 'admin' },
    });
    expect(response.statusCode).toBe(200);
    const results = response.json().results;
    expect(results.map((r: { user: { distinct_id: string } }) => r.user.distinct_id)).toEqual([
      'new-user',
      'inline',
      'known',
    ]);
    for (const result of results) {
      expect(result).toEqual({
        properties: { role: 'admin' },
        user: { distinct_id: expect.any(String), updated_at: expect.stringMatching(/\+00:00$/) },
        object: { id: 't1', object_type: 'teams', subscriptions_count: 3, updated_at: expect.any(String) },
        child_object: null,
        created_at: expect.any(String),
        updated_at: result.created_at,
      });
    }
    // A distinct_id naming no user creates the user; an inline recipient creates or updates it.
    expect((await call(ws, 'GET', '/v1/user/new-user/')).statusCode).toBe(200);
    expect((await call(ws, 'GET', '/v1/user/inline/')).json()).toMatchObject({
      properties: { $locale: 'fr_FR', $timezone: 'Europe/Paris' },
      $email: [{ value: 'in@x.com' }],
      $sms: [{ value: '+14155550123' }],
      $slack: [{ value: { email: 'in@x.com', access_token: 'xoxb' } }],
    });
    expect(await realCount(ws, 'teams', 't1')).toBe(3);
  });

  it('rejects 0 or 101 recipients naming the limit, bad recipients naming the index, a missing parent with 404', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/object/teams/t1/', {});
    const none = await subscribe(ws, 'teams/t1', { recipients: [] });
    expect(none.json()).toEqual({ code: 400, message: 'recipients must NOT have fewer than 1 items' });
    const tooMany = await subscribe(ws, 'teams/t1', { recipients: Array.from({ length: 101 }, (_, i) => `u${i}`) });
    expect(tooMany.json()).toEqual({ code: 400, message: 'recipients must NOT have more than 100 items' });
    expect(
      (await subscribe(ws, 'teams/t1', { recipients: Array.from({ length: 100 }, (_, i) => `u${i}`) })).statusCode,
    ).toBe(200);
    const cases: [unknown, string][] = [
      [['ok', { distinct_id: 'x', $email: ['nope'] }], "recipients[1].$email: 'nope' is not a valid email address"],
      [['ok', '   '], 'recipients[1]: a distinct_id has 1 to 256 characters, not only spaces'],
      [[{ name: 'who' }], 'recipients[0]: needs distinct_id (a user) or object_type and id (an object)'],
      [
        [{ object_type: 'Teams', id: 'x' }],
        'recipients[0].object_type: must be lowercase letters, digits, _ or -, at most 64 characters',
      ],
      [['ok', { object_type: 'teams', id: 'missing' }], "recipients[1]: object 'teams/missing' not found"],
    ];
    for (const [recipients, message] of cases) {
      const response = await subscribe(ws, 'teams/t1', { recipients });
      expect(response.json(), message).toEqual({ code: 400, message });
    }
    expect((await call(ws, 'GET', '/v1/user/ok/')).statusCode).toBe(404);
    const missing = await subscribe(ws, 'teams/ghost', { recipients: ['u1'] });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 404, message: "object 'teams/ghost' not found" });
  });

  it('re-subscribing replaces properties, keeps created_at, moves updated_at, keeps the count; duplicates count once', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/object/teams/t1/', {});
    const first = (
      await subscribe(ws, 'teams/t1', {
        recipients: ['a', 'a', { distinct_id: 'a' }],
        properties: { role: 'viewer', x: 1 },
      })
    ).json().results;
    expect(first).toHaveLength(3);
    expect(first[0].object.subscriptions_count).toBe(1);
    const again = (await subscribe(ws, 'teams/t1', { recipients: ['a'], properties: { role: 'editor' } })).json()
      .results[0];
    expect(again.properties).toEqual({ role: 'editor' });
    expect(again.created_at).toBe(first[0].created_at);
    expect(Date.parse(again.updated_at)).toBeGreaterThan(Date.parse(first[0].updated_at));
    expect(again.object.subscriptions_count).toBe(1);
    expect(await realCount(ws, 'teams', 't1')).toBe(1);
  });

  it('subscribes child objects at any depth, but never into a cycle', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const path of ['orgs/o', 'depts/d', 'teams/t', 'squads/s']) await call(ws, 'POST', `/v1/object/${path}/`, {});
    const child = await subscribe(ws, 'orgs/o', { recipients: [{ object_type: 'depts', id: 'd' }] });
    expect(child.json().results[0]).toMatchObject({
      user: null,
      object: { id: 'o', object_type: 'orgs', subscriptions_count: 1 },
      child_object: { id: 'd', object_type: 'depts', subscriptions_count: 0 },
    });
    expect((await subscribe(ws, 'depts/d', { recipients: [{ object_type: 'teams', id: 't' }] })).statusCode).toBe(200);
    expect(
      (await subscribe(ws, 'teams/t', { recipients: [{ object_type: 'squads', id: 's' }, 'member'] })).statusCode,
    ).toBe(200);
    const self = await subscribe(ws, 'teams/t', { recipients: [{ object_type: 'teams', id: 't' }] });
    expect(self.json()).toEqual({ code: 400, message: "recipients[0]: object 'teams/t' cannot subscribe to itself" });
    const cycle = await subscribe(ws, 'squads/s', { recipients: ['u', { object_type: 'orgs', id: 'o' }] });
    expect(cycle.json()).toEqual({
      code: 400,
      message:
        "recipients[1]: 'orgs/o' cannot subscribe to 'squads/s': 'squads/s' is already subscribed to 'orgs/o' (directly or through other objects), so this would make a cycle",
    });
    expect((await subscribe(ws, 'squads/s', { recipients: [{ object_type: 'depts', id: 'd' }] })).statusCode).toBe(400);
    expect((await call(ws, 'GET', '/v1/object/squads/s/')).json().subscriptions_count).toBe(0);
    expect((await call(ws, 'GET', '/v1/user/u/')).statusCode).toBe(404);
    // A diamond is not a cycle.
    expect((await subscribe(ws, 'orgs/o', { recipients: [{ object_type: 'teams', id: 't' }] })).statusCode).toBe(200);
  });

  it('runs one transaction in a fixed number of statements, whatever the number of recipients', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/object/teams/big/', {});
    for (let i = 0; i < 30; i++) await call(ws, 'POST', `/v1/object/kids/k${i}/`, {});
    const statements = async (recipients: unknown[]) => {
      t().queries.reset();
      expect((await subscribe(ws, 'teams/big', { recipients, properties: { p: 1 } })).statusCode).toBe(200);
      return t().queries.count;
    };
    const users = (n: number, from: number) => Array.from({ length: n }, (_, i) => `user-${from + i}`);
    const kids = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({ object_type: 'kids', id: `k${from + i}` }));
    const inline = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({ distinct_id: `inline-${from + i}`, $email: [`i${from + i}@x.com`] }));
    expect(await statements(users(100, 0))).toBe(await statements(users(1, 200)));
    expect(await statements([...users(1, 300), ...kids(1, 0)])).toBe(
      await statements([...users(50, 400), ...kids(29, 1)]),
    );
    expect(await statements(inline(100, 0))).toBe(await statements(inline(1, 500)));
    // begin, lock parent, create/lock users, write users, upsert subscriptions, read parent, commit
    // (the API key was found by the calls above: the credential cache answers, no auth lookup)
    expect(await statements(inline(1, 600))).toBe(7);
  });

  it('keeps the count right under 20 concurrent overlapping adds', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/object/teams/busy/', {});
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        subscribe(ws, 'teams/busy', { recipients: Array.from({ length: 10 }, (_, j) => `user-${(i * 3 + j) % 40}`) }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const count = (await call(ws, 'GET', '/v1/object/teams/busy/')).json().subscriptions_count;
    expect(count).toBe(await realCount(ws, 'teams', 'busy'));
    expect(count).toBe(
      new Set(Array.from({ length: 20 }, (_, i) => Array.from({ length: 10 }, (_, j) => (i * 3 + j) % 40)).flat()).size,
    );
  });

  it('keeps counts right, without deadlocks, while users and objects are deleted during adds', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const id of ['p1', 'p2', 'c1', 'c2']) await call(ws, 'POST', `/v1/object/teams/${id}/`, {});
    const users = Array.from({ length: 12 }, (_, i) => `m${i}`);
    await subscribe(ws, 'teams/p1', { recipients: users });
    const work = [
      ...Array.from({ length: 8 }, (_, i) =>
        subscribe(ws, `teams/p${(i % 2) + 1}`, {
          recipients: [...users.slice(i, i + 5), { object_type: 'teams', id: `c${(i % 2) + 1}` }],
        }),
      ),
      ...users.slice(0, 6).map((id) => call(ws, 'DELETE', `/v1/user/${id}/`)),
      call(ws, 'DELETE', '/v1/object/teams/c2/'),
      call(ws, 'DELETE', '/v1/object/teams/p1/subscription/', { recipients: users.slice(6, 9) }),
    ];
    const responses = await Promise.all(work);
    const statuses = responses.map((r) => r.statusCode);
    expect(
      statuses.every((status) => [200, 204, 400].includes(status)),
      statuses.join(','),
    ).toBe(true);
    // The only refusals: adding teams/c2 after it was deleted.
    for (const response of responses.filter((r) => r.statusCode === 400))
      expect(response.json().message).toBe("recipients[5]: object 'teams/c2' not found");
    for (const id of ['p1', 'p2']) {
      expect((await call(ws, 'GET', `/v1/object/teams/${id}/`)).json().subscriptions_count, id).toBe(
        await realCount(ws, 'teams', id),
      );
    }
  });

  it('lists subscribers with cursors, and removes subscriptions (204) fixing the count', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const path of ['teams/t', 'kids/k']) await call(ws, 'POST', `/v1/object/${path}/`, {});
    for (const recipient of ['a', 'b', { object_type: 'kids', id: 'k' }, 'c'])
      await subscribe(ws, 'teams/t', { recipients: [recipient], properties: { r: 1 } });
    const page1 = (await call(ws, 'GET', '/v1/object/teams/t/subscription/?limit=3')).json();
    expect(page1.meta).toMatchObject({ count: 4, limit: 3, has_next: true, has_prev: false });
    const subscriber = (r: { user: { distinct_id: string } | null; child_object: { id: string } | null }) =>
      r.user?.distinct_id ?? `obj:${r.child_object!.id}`;
    expect(page1.results.map(subscriber)).toEqual(['a', 'b', 'obj:k']);
    expect(page1.results[0]).toMatchObject({
      properties: { r: 1 },
      object: { id: 't', subscriptions_count: 4 },
      child_object: null,
    });
    const page2 = (await call(ws, 'GET', `/v1/object/teams/t/subscription/?limit=3&after=${page1.meta.after}`)).json();
    expect(page2.results.map(subscriber)).toEqual(['c']);
    expect((await call(ws, 'GET', '/v1/object/teams/ghost/subscription/')).json()).toEqual({
      code: 404,
      message: "object 'teams/ghost' not found",
    });

    const removed = await call(ws, 'DELETE', '/v1/object/teams/t/subscription/', {
      recipients: ['a', { object_type: 'kids', id: 'k' }, 'never-subscribed', { object_type: 'kids', id: 'nope' }],
    });
    expect(removed.statusCode).toBe(204);
    const left = (await call(ws, 'GET', '/v1/object/teams/t/subscription/')).json();
    expect(left.results.map(subscriber)).toEqual(['b', 'c']);
    expect((await call(ws, 'GET', '/v1/object/teams/t/')).json().subscriptions_count).toBe(2);
    expect((await call(ws, 'DELETE', '/v1/object/teams/ghost/subscription/', { recipients: ['b'] })).statusCode).toBe(
      404,
    );
    expect((await call(ws, 'DELETE', '/v1/object/teams/t/subscription/', { recipients: [] })).statusCode).toBe(400);
  });

  it('lists what a user and what an object are subscribed to', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const path of ['teams/t1', 'teams/t2', 'orgs/o']) await call(ws, 'POST', `/v1/object/${path}/`, {});
    await subscribe(ws, 'teams/t1', { recipients: ['ada'], properties: { role: 'lead' } });
    await subscribe(ws, 'teams/t2', { recipients: ['ada'] });
    await subscribe(ws, 'orgs/o', { recipients: [{ object_type: 'teams', id: 't1' }] });
    const page = (await call(ws, 'GET', '/v1/user/ada/subscribed_to/object/?limit=1')).json();
    expect(page.results).toEqual([
      {
        properties: { role: 'lead' },
        object: { id: 't1', object_type: 'teams', subscriptions_count: 1, updated_at: expect.any(String) },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect(page.meta).toMatchObject({ count: 2, has_next: true });
    const next = (await call(ws, 'GET', `/v1/user/ada/subscribed_to/object/?limit=1&after=${page.meta.after}`)).json();
    expect(next.results.map((r: { object: { id: string } }) => r.object.id)).toEqual(['t2']);
    const ofObject = (await call(ws, 'GET', '/v1/object/teams/t1/subscribed_to/object/')).json();
    expect(
      ofObject.results.map(
        (r: { object: { id: string; object_type: string } }) => `${r.object.object_type}/${r.object.id}`,
      ),
    ).toEqual(['orgs/o']);
    expect((await call(ws, 'GET', '/v1/user/ghost/subscribed_to/object/')).json()).toEqual({
      code: 404,
      message: "user [distinct_id: 'ghost'] not found",
    });
    expect((await call(ws, 'GET', '/v1/object/teams/ghost/subscribed_to/object/')).statusCode).toBe(404);
  });
});
