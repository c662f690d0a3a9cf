import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

const active = (value: unknown, id_provider?: string) => ({
  value,
  status: 'active',
  perma_status: 'active',
  ...(id_provider ? { id_provider } : {}),
});

describe('users', () => {
  const t = useTestApp();
  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });
  const edit = (ws: WorkspaceFixture, id: string, operations: unknown[]) =>
    call(ws, 'PATCH', `/v1/user/${encodeURIComponent(id)}/`, { operations });

  it('upserts: 201, properties set, channel entries added once, created_at kept and updated_at moved', async () => {
    const ws = await createWorkspaceFixture(t());
    const first = await call(ws, 'POST', '/v1/user/u1/', {
      $email: 'Ada@Example.com',
      $sms: ['+1 415-555-0123'],
      $timezone: 'Europe/Paris',
      $locale: 'fr_FR',
      plan: 'pro',
    });
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({
      distinct_id: 'u1',
      properties: { plan: 'pro', $locale: 'fr_FR', $timezone: 'Europe/Paris' },
      created_at: expect.stringMatching(/\+00:00$/),
      updated_at: first.json().created_at,
      $email: [active('ada@example.com')],
      $sms: [active('+14155550123')],
    });
    const second = await call(ws, 'POST', '/v1/user/u1/', {
      $email: ['ada@example.com', 'b@example.com'],
      $preferred_language: 'es',
      seats: 3,
    });
    expect(second.statusCode).toBe(201);
    const body = second.json();
    expect(body.properties).toEqual({ plan: 'pro', seats: 3, $locale: 'es', $timezone: 'Europe/Paris' });
    expect(body.$email).toEqual([active('ada@example.com'), active('b@example.com')]);
    expect(body.created_at).toBe(first.json().created_at);
    expect(Date.parse(body.updated_at)).toBeGreaterThan(Date.parse(first.json().updated_at));
  });

  it('rejects bad channel values and reserved properties with 400 naming the value', async () => {
    const ws = await createWorkspaceFixture(t());
    const cases: [unknown, string][] = [
      [{ $email: 'not-an-email' }, "$email: 'not-an-email' is not a valid email address"],
      [{ $sms: '4155550123' }, "$sms: '4155550123' is not an E.164 phone number (like +14155550123)"],
      [{ $whatsapp: ['+14155550123', '+0123'] }, "$whatsapp: '+0123' is not an E.164 phone number (like +14155550123)"],
      // A user_id without access_token is taken now (the workspace's Slack vendor delivers): nothing to reach is not.
      [{ $slack: { team: 'T1' } }, '$slack: {"team":"T1"} must carry one of email, user_id, channel_id'],
      [
        { $ms_teams: { tenant_id: 't' } },
        '$ms_teams: {"tenant_id":"t"} must carry tenant_id and service_url (or incoming_webhook.url)',
      ],
      [
        { $webpush: { endpoint: 'https://push.example/x' } },
        '$webpush: {"endpoint":"https://push.example/x"} must be a push subscription {endpoint, keys: {p256dh, auth}}',
      ],
      [{ $timezone: 'Mars/Olympus' }, "$timezone: 'Mars/Olympus' is not an IANA time zone name (like Europe/Paris)"],
      [{ $locale: 'french!' }, "$locale: 'french!' is not a language or locale code (like en or fr_FR)"],
    ];
    for (const [payload, message] of cases) {
      const response = await call(ws, 'POST', '/v1/user/bad/', payload);
      expect(response.statusCode, message).toBe(400);
      expect(response.json()).toEqual({ code: 400, message });
    }
    expect((await call(ws, 'GET', '/v1/user/bad/')).statusCode).toBe(404);
  });

  it('applies every edit operation, channel forms included', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/user/u2/', { visits: 1, tags: ['a'], old: true, first_seen: 'mon' });
    const slack = { email: 'ada@example.com', access_token: 'xoxb-1' };
    const teams = { tenant_id: 't1', service_url: 'https://smba.example', conversation_id: 'c1' };
    const webpush = { endpoint: 'https://push.example/1', keys: { p256dh: 'p', auth: 'a' } };
    const response = await edit(ws, 'u2', [
      { $set: { name: 'Ada', $timezone: 'Asia/Kolkata' }, $set_once: { first_seen: 'tue', source: 'ads' } },
      { $add: { visits: 2 } },
      { $increment: { visits: 0.5, logins: 1 } },
      { $append: { tags: 'b', $email: 'ada@example.com' } },
      { $append: { tags: 'b' } },
      { $append: { $androidpush: 'tok-1', $id_provider: 'xiaomi' } },
      { $append: { $iospush: 'tok-2', $id_provider: null } },
      { $append: { $webpush: webpush, $id_provider: 'vapid' } },
      { $append: { $slack: slack } },
      { $append: { $ms_teams: teams } },
      { $append: { $whatsapp: '+919876543210', $inbox: 'inbox-1' } },
      { $append: { $sms: '+14155550123' } },
      { $remove: { tags: 'a', $sms: '+14155550123' } },
      { $unset: ['old', '$inbox'] },
    ]);
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({
      distinct_id: 'u2',
      properties: {
        name: 'Ada',
        tags: ['b'],
        logins: 1,
        source: 'ads',
        visits: 3.5,
        $timezone: 'Asia/Kolkata',
        first_seen: 'mon',
      },
      created_at: expect.any(String),
      updated_at: expect.any(String),
      $email: [active('ada@example.com')],
      $androidpush: [active('tok-1', 'xiaomi')],
      $iospush: [active('tok-2', 'apns')],
      $webpush: [active(webpush, 'vapid')],
      $slack: [active(slack)],
      $ms_teams: [active(teams)],
      $whatsapp: [active('+919876543210')],
    });
    expect((await call(ws, 'GET', '/v1/user/u2/')).json()).toEqual(response.json());
  });

  it('does not duplicate an appended channel value, and a no-op edit keeps updated_at', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = (
      await call(ws, 'POST', '/v1/user/u3/', { $email: 'a@x.com', $slack: { user_id: 'U1', access_token: 'xoxb' } })
    ).json();
    const again = await edit(ws, 'u3', [
      { $append: { $email: 'A@X.COM', $slack: { access_token: 'xoxb', user_id: 'U1' } } },
    ]);
    expect(again.json().$email).toEqual([active('a@x.com')]);
    expect(again.json().$slack).toHaveLength(1);
    expect(again.json().updated_at).toBe(created.updated_at);
    const changed = await edit(ws, 'u3', [{ $set: { x: 1 } }]);
    expect(Date.parse(changed.json().updated_at)).toBeGreaterThan(Date.parse(created.updated_at));
    expect(changed.json().created_at).toBe(created.created_at);
  });

  it('answers bad edits with 400 naming the operation, and an unknown user with 404', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/user/u4/', { name: 'x', n: 1 });
    const cases: [unknown[], string][] = [
      [[{ $add: { name: 1 } }], 'operations[0].$add.name: cannot add: property name is not a number'],
      [
        [{ $set: { n: 2 } }, { $append: { name: 'y' } }],
        'operations[1].$append.name: cannot append: property name is not a list',
      ],
      [[{ $append: { $email: 'nope' } }], "operations[0].$append.$email: 'nope' is not a valid email address"],
      [
        [{ $set: { $email: 'a@x.com' } }],
        'operations[0].$set.$email: $email is a channel: change it with $append, $remove or $unset',
      ],
    ];
    for (const [operations, message] of cases) {
      const response = await edit(ws, 'u4', operations);
      expect(response.json(), message).toEqual({ code: 400, message });
    }
    const unknownOp = await edit(ws, 'u4', [{ $rename: { a: 'b' } }]);
    expect(unknownOp.statusCode).toBe(400);
    expect(unknownOp.json().message).toContain('$rename');
    expect((await call(ws, 'GET', '/v1/user/u4/')).json().properties).toEqual({ name: 'x', n: 1 });
    const missing = await edit(ws, 'ghost', [{ $set: { a: 1 } }]);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ code: 404, message: "user [distinct_id: 'ghost'] not found" });
  });

  it('never loses an update: 50 concurrent $add of 1 make 50', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/user/counter/', {});
    const responses = await Promise.all(Array.from({ length: 50 }, () => edit(ws, 'counter', [{ $add: { n: 1 } }])));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(50).fill(202));
    expect((await call(ws, 'GET', '/v1/user/counter/')).json().properties).toEqual({ n: 50 });
  });

  it('takes any URL-encoded distinct_id, case-sensitively', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const id of ['Al/ice @ü', 'al/ice @ü', '100%', 'ünï 😀', 'a?b#c']) {
      const url = `/v1/user/${encodeURIComponent(id)}/`;
      expect((await call(ws, 'POST', url, { id })).json().distinct_id, id).toBe(id);
      expect((await call(ws, 'PATCH', url, { operations: [{ $set: { ok: true } }] })).json().properties, id).toEqual({
        id,
        ok: true,
      });
    }
    expect((await call(ws, 'DELETE', `/v1/user/${encodeURIComponent('Al/ice @ü')}/`)).statusCode).toBe(204);
    expect((await call(ws, 'GET', `/v1/user/${encodeURIComponent('al/ice @ü')}/`)).statusCode).toBe(200);
    for (const id of ['%20', 'x'.repeat(257)]) {
      const response = await call(ws, 'POST', `/v1/user/${id}/`, {});
      expect(response.statusCode).toBe(400);
      expect(Object.keys(response.json())).toEqual(['code', 'message']);
    }
  });

  it('lists users with cursors that page both ways and survive inserts', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const id of ['a', 'b', 'c', 'd', 'e']) await call(ws, 'POST', `/v1/user/${id}/`, {});
    const ids = (body: { results: { distinct_id: string }[] }) => body.results.map((u) => u.distinct_id);
    const page1 = (await call(ws, 'GET', '/v1/user/?limit=2')).json();
    expect(ids(page1)).toEqual(['a', 'b']);
    expect(page1.meta).toEqual({
      count: 5,
      limit: 2,
      has_prev: false,
      before: null,
      has_next: true,
      after: expect.any(String),
    });
    await call(ws, 'POST', '/v1/user/f/', {});
    const page2 = (await call(ws, 'GET', `/v1/user/?limit=2&after=${page1.meta.after}`)).json();
    expect(ids(page2)).toEqual(['c', 'd']);
    expect(page2.meta).toMatchObject({ count: 6, has_prev: true, has_next: true });
    const page3 = (await call(ws, 'GET', `/v1/user/?limit=2&after=${page2.meta.after}`)).json();
    expect(ids(page3)).toEqual(['e', 'f']);
    expect(page3.meta).toMatchObject({ has_next: false, after: null, has_prev: true });
    const back = (await call(ws, 'GET', `/v1/user/?limit=2&before=${page3.meta.before}`)).json();
    expect(ids(back)).toEqual(['c', 'd']);
    const first = (await call(ws, 'GET', `/v1/user/?limit=2&before=${back.meta.before}`)).json();
    expect(ids(first)).toEqual(['a', 'b']);
    expect(first.meta).toMatchObject({ has_prev: false, before: null, has_next: true });
    expect(ids((await call(ws, 'GET', '/v1/user/')).json())).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect((await call(ws, 'GET', '/v1/user/')).json().meta.limit).toBe(10);
  });

  it('rejects bad list parameters with 400', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const query of ['limit=0', 'limit=1001', 'after=garbage', 'before=YWJj&after=YWJj']) {
      const response = await call(ws, 'GET', `/v1/user/?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(Object.keys(response.json())).toEqual(['code', 'message']);
    }
    expect((await call(ws, 'GET', '/v1/user/?limit=1000')).statusCode).toBe(200);
  });

  it('deletes a user (204), then answers 404; bulk delete skips unknown ids', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const id of ['d1', 'd2', 'd3', 'keep']) await call(ws, 'POST', `/v1/user/${id}/`, { $email: `${id}@x.com` });
    const deleted = await call(ws, 'DELETE', '/v1/user/d1/');
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call(ws, 'GET', '/v1/user/d1/')).statusCode).toBe(404);
    expect((await call(ws, 'DELETE', '/v1/user/d1/')).json()).toEqual({
      code: 404,
      message: "user [distinct_id: 'd1'] not found",
    });
    expect((await call(ws, 'DELETE', '/v1/bulk/user/', { distinct_ids: ['d2', 'd3', 'ghost'] })).statusCode).toBe(204);
    expect(
      (await call(ws, 'GET', '/v1/user/')).json().results.map((u: { distinct_id: string }) => u.distinct_id),
    ).toEqual(['keep']);
    expect((await call(ws, 'DELETE', '/v1/bulk/user/', { distinct_ids: [] })).statusCode).toBe(400);
    expect(
      (await call(ws, 'DELETE', '/v1/bulk/user/', { distinct_ids: Array.from({ length: 1001 }, (_, i) => `u${i}`) }))
        .statusCode,
    ).toBe(400);
  });
});
