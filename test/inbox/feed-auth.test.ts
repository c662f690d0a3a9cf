import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { baseCall, messages, settledMessages, trigger } from '../support/engine-drivers.js';
import { feedClient, inboxRenderer, inboxWorkspace } from '../support/inbox.js';

describe('in-app feed: auth and isolation', () => {
  const t = useTestApp({}, { engine: { engine: { render: inboxRenderer } } });

  it('refuses a call without both headers, a tampered or expired token, or another workspace’s token', async () => {
    const inbox = await inboxWorkspace(t);
    const other = await inboxWorkspace(t);
    await inbox.notify(['ann']);
    const token = await inbox.mint('ann');
    const get = (headers: Record<string, string>) =>
      t().app.inject({ method: 'GET', url: '/v1/feed/notifications', headers });
    expect((await get({ authorization: inbox.publicKey, 'x-ss-signature': token })).statusCode).toBe(200);

    const [head, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, entity_id: 'ben' })).toString('base64url');
    const refused = {
      'no headers': {},
      'no token': { authorization: inbox.publicKey },
      'no public key': { 'x-ss-signature': token },
      'unknown public key': { authorization: 'SS.PUBK.nope', 'x-ss-signature': token },
      'tampered claims': { authorization: inbox.publicKey, 'x-ss-signature': `${head}.${forged}.${signature}` },
      'tampered signature': {
        authorization: inbox.publicKey,
        'x-ss-signature': `${head}.${payload}.${signature!.slice(0, -4)}AAAA`,
      },
      expired: {
        authorization: inbox.publicKey,
        'x-ss-signature': await inbox.mint('ann', { expiresIn: Math.floor(Date.now() / 1000) - 10 }),
      },
      'not a subscriber': {
        authorization: inbox.publicKey,
        'x-ss-signature': await inbox.mint('ann', { claims: { entity_type: 'admin' } }),
      },
      'another workspace’s token': { authorization: inbox.publicKey, 'x-ss-signature': await other.mint('ann') },
      'another workspace’s public key': { authorization: other.publicKey, 'x-ss-signature': token },
    };
    for (const [what, headers] of Object.entries(refused)) {
      const answer = await get(headers);
      expect(answer.statusCode, what).toBe(401);
      expect(answer.json(), what).toMatchObject({ code: 401, message: 'authentication failed' });
    }
    // Every feed call is checked, not only the list.
    const calls: [string, string, object?][] = [
      ['GET', '/v1/feed/notifications_count'],
      ['GET', '/v1/feed/notifications/x'],
      ['PATCH', '/v1/feed/notifications/x/read'],
      ['POST', '/v1/feed/bulk/notifications/seen', { notification_ids: ['x'] }],
      ['PATCH', '/v1/feed/mark_all_read'],
      ['PATCH', '/v1/feed/reset_bell_count'],
      ['POST', '/v2/event', { event: 'x', properties: {} }],
    ];
    for (const [method, url, body] of calls) {
      const answer = await t().app.inject({
        method: method as 'GET',
        url,
        headers: { authorization: inbox.publicKey, 'x-ss-signature': await other.mint('ann') },
        ...(body ? { payload: body } : {}),
      });
      expect(answer.statusCode, `${method} ${url}`).toBe(401);
    }
  });

  it('a token for user A never reads or changes user B’s feed, nor the same user’s feed in another workspace', async () => {
    const inbox = await inboxWorkspace(t);
    const other = await inboxWorkspace(t);
    const [forAnn] = await inbox.notify(['ann'], { text: 'ann only' });
    const [forBen] = await inbox.notify(['ben'], { text: 'ben only' });
    const [annElsewhere] = await other.notify(['ann'], { text: 'other workspace' });
    const ann = feedClient(t, inbox.publicKey, await inbox.mint('ann'));

    const listed = (await ann('GET', '/v1/feed/notifications')).json();
    expect(listed.results.map((n: { n_id: string }) => n.n_id)).toEqual([forAnn]);
    expect(listed.meta.total_count).toBe(1);
    expect((await ann('GET', '/v1/feed/notifications?distinct_id=ben')).statusCode).toBe(403);
    expect((await ann('GET', `/v1/feed/notifications/${forBen}`)).statusCode).toBe(404);
    expect((await ann('GET', `/v1/feed/notifications/${annElsewhere}`)).statusCode).toBe(404);
    for (const action of ['seen', 'read', 'interacted', 'archive'])
      expect((await ann('PATCH', `/v1/feed/notifications/${forBen}/${action}`)).statusCode).toBe(404);
    expect((await ann('POST', '/v1/feed/bulk/notifications/seen', { notification_ids: [forBen] })).json().updated).toBe(
      0,
    );
    await ann('PATCH', '/v1/feed/mark_all_read');
    await ann('PATCH', '/v1/feed/reset_bell_count');
    const ben = (await messages(t, inbox.ws, `?message_id=${forBen}`)).results[0]!;
    expect(ben).toMatchObject({ status: 'delivered', is_read: false, seen_at: null, is_archived: false });
    const elsewhere = (await messages(t, other.ws, `?message_id=${annElsewhere}`)).results[0]!;
    expect(elsewhere).toMatchObject({ status: 'delivered', is_read: false, seen_at: null });
    // Ann's own one did change.
    expect((await messages(t, inbox.ws, `?message_id=${forAnn}`)).results[0]).toMatchObject({ status: 'read' });

    // Only delivered inbox messages are in a feed: a refused or emailed one never is.
    expect((await ann('GET', '/v1/feed/notifications_count')).json()).toEqual({ badge: 0 });
  });

  it('a token scoped to a tenant reads that tenant’s feed only', async () => {
    const inbox = await inboxWorkspace(t);
    expect((await baseCall(t, inbox.ws)('POST', '/v1/tenant/acme/', { tenant_name: 'Acme' })).statusCode).toBeLessThan(
      300,
    );
    const [plain] = await inbox.notify(['ann'], { text: 'default tenant' });
    const acme = await trigger(t, inbox.ws, { workflow: 'feed', recipients: ['ann'], tenant_id: 'acme', data: {} });
    const [inAcme] = (await settledMessages(t, inbox.ws, acme.json().message_id, 1)).map((m) => m.message_id);

    const scoped = feedClient(t, inbox.publicKey, await inbox.mint('ann', { tenantId: 'acme' }));
    expect((await scoped('GET', '/v1/feed/notifications')).json().results.map((n: { n_id: string }) => n.n_id)).toEqual(
      [inAcme],
    );
    expect((await scoped('GET', '/v1/feed/notifications?tenant_id=acme')).statusCode).toBe(200);
    const wrong = await scoped('GET', '/v1/feed/notifications?tenant_id=default');
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().message).toMatch(/scoped to tenant 'acme'/);
    expect((await scoped('PATCH', `/v1/feed/notifications/${plain}/read`)).statusCode).toBe(404);

    // Unscoped, the tenant is the call's (default 'default', as the web SDK sends).
    const unscoped = feedClient(t, inbox.publicKey, await inbox.mint('ann'));
    expect(
      (await unscoped('GET', '/v1/feed/notifications?tenant_id=default'))
        .json()
        .results.map((n: { n_id: string }) => n.n_id),
    ).toEqual([plain]);
    expect(
      (await unscoped('GET', '/v1/feed/notifications?tenant_id=acme'))
        .json()
        .results.map((n: { n_id: string }) => n.n_id),
    ).toEqual([inAcme]);
  });

  it('answers a browser’s preflight without credentials, and allows any origin', async () => {
    const preflight = await t().app.inject({
      method: 'OPTIONS',
      url: '/v1/feed/notifications?distinct_id=ann',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-headers']).toContain('x-ss-signature');
    const refused = await t().app.inject({ method: 'GET', url: '/v1/feed/notifications' });
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });
});
