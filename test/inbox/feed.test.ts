import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { baseCall, messages, trigger, settledMessages } from '../support/engine-drivers.js';
import { feedClient, inboxRenderer, inboxWorkspace, storeParam } from '../support/inbox.js';

describe('in-app feed REST API', () => {
  const t = useTestApp({}, { engine: { engine: { render: inboxRenderer } } });

  it('lists the user’s notifications, pinned first then newest first, in cursor pages, with the §8 shape', async () => {
    const inbox = await inboxWorkspace(t);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(...(await inbox.notify(['ann'], { text: `n${i}` })));
    const [pinned] = await inbox.notify(['ann'], { text: 'pinned', pinned: true, url: 'https://example.com/p' });
    await inbox.notify(['ben'], { text: 'for ben' });
    const feed = feedClient(t, inbox.publicKey, await inbox.mint('ann'));

    const first = await feed('GET', '/v1/feed/notifications?distinct_id=ann&tenant_id=default&page_size=4');
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body.meta).toEqual({ total_count: 6, has_more: true });
    expect(body.results.map((n: { n_id: string }) => n.n_id)).toEqual([pinned, ids[4], ids[3], ids[2]]);
    expect(body.results[0]).toEqual({
      n_id: pinned,
      n_category: 'order-updates',
      created_on: expect.any(Number),
      seen_on: null,
      read_on: null,
      interacted_on: null,
      archived: false,
      tags: [],
      expiry: null,
      is_expiry_visible: false,
      is_pinned: true,
      can_user_unpin: false,
      message: {
        schema: '1',
        header: 'Hello ann',
        text: 'pinned',
        url: 'https://example.com/p',
        avatar: null,
        subtext: null,
        actions: [],
        extra_data: null,
      },
    });
    const last = body.results[3];
    const second = await feed(
      'GET',
      `/v1/feed/notifications/?page_size=4&search_after=${storeParam([last.is_pinned, last.created_on])}`,
    );
    expect(second.json().meta).toEqual({ total_count: 6, has_more: false });
    expect(second.json().results.map((n: { n_id: string }) => n.n_id)).toEqual([ids[1], ids[0]]);
    expect((await feed('GET', '/v1/feed/notifications?search_after=%5B%5D&page_size=100')).json().results).toHaveLength(
      6,
    );

    // One notification, as the SDK fetches it on new_notification.
    const one = await feed('GET', `/v1/feed/notifications/${ids[0]}?tenant_id=default&distinct_id=ann`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toMatchObject({ n_id: ids[0], message: { text: 'n0' } });

    // Bad paging input is a 400 in the documented shape.
    for (const query of ['page_size=101', 'page_size=0', 'search_after=%5Btrue%5D', 'search_after=nope', 'store=%7B'])
      expect((await feed('GET', `/v1/feed/notifications?${query}`)).statusCode, query).toBe(400);
    const bad = await feed('GET', '/v1/feed/notifications?store=%7B%22store_id%22%3A1%7D');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/store_id/);
  });

  it('filters by store: read, archived, tags and categories; counts the badge and each store', async () => {
    const inbox = await inboxWorkspace(t);
    const [a] = await inbox.notify(['ann'], { text: 'a', tags: ['billing'] });
    const [b] = await inbox.notify(['ann'], { text: 'b', tags: ['social', 'x'] });
    const [c] = await inbox.notify(['ann'], { text: 'c' });
    const offer = await trigger(t, inbox.ws, { workflow: 'offers', recipients: ['ann'], data: { text: 'sale' } });
    const [o] = (await settledMessages(t, inbox.ws, offer.json().message_id, 1)).map((m) => m.message_id);
    const feed = feedClient(t, inbox.publicKey, await inbox.mint('ann'));
    const list = async (store: object) => {
      const answer = await feed('GET', `/v1/feed/notifications?store=${storeParam(store)}`);
      expect(answer.statusCode).toBe(200);
      return answer
        .json()
        .results.map((n: { n_id: string }) => n.n_id)
        .sort();
    };
    expect((await feed('PATCH', `/v1/feed/notifications/${a}/read`)).statusCode).toBe(200);
    expect((await feed('PATCH', `/v1/feed/notifications/${c}/archive`)).statusCode).toBe(200);

    const sorted = (...xs: (string | undefined)[]) => [...xs].sort();
    expect(await list({ store_id: 'all', query: {} })).toEqual(sorted(a, b, o));
    expect(await list({ store_id: 'unread', query: { read: false } })).toEqual(sorted(b, o));
    expect(await list({ store_id: 'read', query: { read: true } })).toEqual(sorted(a));
    expect(await list({ store_id: 'archived', query: { archived: true } })).toEqual(sorted(c));
    expect(await list({ store_id: 't', query: { tags: { or: ['social', 'billing'] } } })).toEqual(sorted(a, b));
    expect(await list({ store_id: 't', query: { tags: 'x' } })).toEqual(sorted(b));
    expect(await list({ store_id: 'c', query: { categories: { or: ['offers'] } } })).toEqual(sorted(o));
    expect(
      await list({ store_id: 'c', query: { read: false, categories: { or: ['order-updates'] }, tags: { or: [] } } }),
    ).toEqual(sorted(b));

    const stores = [
      { store_id: 'unread', query: { read: false } },
      { store_id: 'billing', query: { tags: { or: ['billing'] } } },
      { store_id: 'offers', query: { categories: { or: ['offers'] } } },
      { store_id: 'archived', query: { archived: true } },
    ];
    const count = await feed('GET', `/v1/feed/notifications_count?tenant_id=default&stores=${storeParam(stores)}`);
    expect(count.statusCode).toBe(200);
    // badge: unseen and unarchived (a was seen by being read, c is archived); stores: unread ones.
    expect(count.json()).toEqual({ badge: 2, unread: 2, billing: 0, offers: 1, archived: 1 });
    expect((await feed('GET', '/v1/feed/notifications_count')).json()).toEqual({ badge: 2 });
    expect((await feed('GET', `/v1/feed/notifications_count?stores=${storeParam({})}`)).statusCode).toBe(400);
    expect(
      (await feed('GET', `/v1/feed/notifications_count?stores=${storeParam([{ store_id: 'badge' }])}`)).statusCode,
    ).toBe(400);
  });

  it('changes state: seen, read, unread, interacted, archive, bulk seen, mark all read, reset bell; /v1/message/ agrees', async () => {
    const inbox = await inboxWorkspace(t);
    const [a, b, c, d] = [
      ...(await inbox.notify(['ann'], { text: 'a' })),
      ...(await inbox.notify(['ann'], { text: 'b' })),
      ...(await inbox.notify(['ann'], { text: 'c' })),
      ...(await inbox.notify(['ann'], { text: 'd' })),
    ];
    const feed = feedClient(t, inbox.publicKey, await inbox.mint('ann'));
    const message = async (id: string) => (await messages(t, inbox.ws, `?message_id=${id}`)).results[0]!;

    const seen = await feed('PATCH', `/v1/feed/notifications/${a}/seen?tenant_id=default&distinct_id=ann`);
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toMatchObject({ n_id: a, seen_on: expect.any(Number), read_on: null });
    expect(await message(a!)).toMatchObject({ status: 'seen', seen_at: expect.any(String), is_read: false });

    const read = (await feed('PATCH', `/v1/feed/notifications/${a}/read/`)).json();
    expect(read.read_on).toEqual(expect.any(Number));
    expect(await message(a!)).toMatchObject({ status: 'read', is_read: true, read_at: expect.any(String) });
    const unread = (await feed('PATCH', `/v1/feed/notifications/${a}/unread`)).json();
    expect(unread.read_on).toBeNull();
    expect(await message(a!)).toMatchObject({ status: 'read', is_read: false, read_at: null });

    const interacted = (await feed('PATCH', `/v1/feed/notifications/${b}/interacted`)).json();
    expect(interacted).toMatchObject({ interacted_on: expect.any(Number), read_on: expect.any(Number) });
    expect(await message(b!)).toMatchObject({ status: 'clicked', is_read: true, clicked_at: expect.any(String) });

    const archived = (await feed('PATCH', `/v1/feed/notifications/${c}/archive`)).json();
    expect(archived.archived).toBe(true);
    expect(await message(c!)).toMatchObject({ is_archived: true, archived_at: expect.any(String) });

    // The server side's engagement API and the feed are one state.
    const viaApi = await baseCall(t, inbox.ws)('PATCH', '/v1/bulk/message/', {
      messages: [{ message_id: d, action: 'read' }],
    });
    expect(viaApi.statusCode).toBe(202);
    expect((await feed('GET', `/v1/feed/notifications/${d}`)).json().read_on).toEqual(expect.any(Number));

    expect((await feed('PATCH', `/v1/feed/notifications/${a}/pin`)).statusCode).toBe(400);
    const missing = await feed('PATCH', '/v1/feed/notifications/01NOPE/read');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 404, message: "notification '01NOPE' not found" });

    // Bulk seen: only the user's ids change; the answer counts them.
    const others = await inbox.notify(['zed']);
    const fresh = [...(await inbox.notify(['ann'], { text: 'e' })), ...(await inbox.notify(['ann'], { text: 'f' }))];
    const bulk = await feed('POST', '/v1/feed/bulk/notifications/seen?tenant_id=default', {
      notification_ids: [...fresh, others[0]!, 'unknown'],
    });
    expect(bulk.statusCode).toBe(200);
    expect(bulk.json()).toEqual({ success: true, updated: 2 });
    expect((await message(others[0]!)).status).toBe('delivered');
    for (const id of fresh) expect((await message(id)).status).toBe('seen');
    expect((await feed('POST', '/v1/feed/bulk/notifications/seen', { notification_ids: [] })).statusCode).toBe(400);
    expect((await feed('POST', '/v1/feed/bulk/notifications/seen', {})).statusCode).toBe(400);

    // Reset bell: the badge goes to 0, what it counted is seen.
    const [g] = await inbox.notify(['ann'], { text: 'g' });
    expect((await feed('GET', '/v1/feed/notifications_count')).json().badge).toBe(1);
    const reset = await feed('PATCH', '/v1/feed/reset_bell_count?tenant_id=default&distinct_id=ann');
    expect(reset.json()).toEqual({ success: true, updated: 1 });
    expect((await feed('GET', '/v1/feed/notifications_count')).json().badge).toBe(0);
    expect((await message(g!)).status).toBe('seen');

    // Mark all read: every unread one of the user's, no one else's.
    const all = await feed('PATCH', '/v1/feed/mark_all_read');
    expect(all.statusCode).toBe(200);
    expect(all.json().success).toBe(true);
    const unreadStore = storeParam([{ store_id: 'unread', query: { read: false } }]);
    expect((await feed('GET', `/v1/feed/notifications_count?stores=${unreadStore}`)).json()).toEqual({
      badge: 0,
      unread: 0,
    });
    expect(await message(a!)).toMatchObject({ status: 'read', is_read: true });
    expect(await message(b!)).toMatchObject({ status: 'clicked', is_read: true });
    expect((await message(others[0]!)).is_read).toBe(false);
  });

  it('records the web SDK’s identify and track events for the token’s user only', async () => {
    const inbox = await inboxWorkspace(t);
    const feed = feedClient(t, inbox.publicKey, await inbox.mint('new-user'));
    const identify = await feed('POST', '/v2/event', {
      event: '$identify',
      $insert_id: 'a1b2',
      $time: Date.now(),
      properties: { $identified_id: 'new-user' },
    });
    expect(identify.statusCode).toBe(202);
    expect(identify.json()).toEqual({ success: true });
    expect((await baseCall(t, inbox.ws)('GET', '/v1/user/new-user/')).statusCode).toBe(200);
    const track = await feed('POST', '/v2/event', {
      event: 'opened_inbox',
      $insert_id: '0b7e3a5c-2d9f-4a61-8c1e-7f20d3b4a111',
      $time: Date.now(),
      distinct_id: 'new-user',
      properties: { page: 'home' },
    });
    expect(track.statusCode).toBe(202);
    const events = await t()
      .db.selectFrom('events')
      .select(['distinct_id', 'event'])
      .where('workspace_id', '=', inbox.ws.workspaceId)
      .execute();
    expect(events).toEqual([{ distinct_id: 'new-user', event: 'opened_inbox' }]);
    const spoof = await feed('POST', '/v2/event', { event: 'x', distinct_id: 'someone-else', properties: {} });
    expect(spoof.statusCode).toBe(403);
    expect((await feed('POST', '/v2/event', { event: '$reserved', properties: {} })).statusCode).toBe(400);
  });
});
