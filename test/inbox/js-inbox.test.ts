import SuprSendInbox from '@suprsend/js-inbox';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.js';
import { messages, waitFor } from '../support/engine-drivers.js';
import { inboxWorkspace, makeInboxSecret, storeParam, subscriberIdOf, useListeningInboxApp } from '../support/inbox.js';

/** A notification as the older clients hold it (their own types are loose). */
type Held = { n_id: string; seen_on?: number | null; archived?: boolean; message: { text: string } };

/** Calls the older inbox API as the clients do: the workspace key and a uuid in Authorization. */
function olderClient(t: () => TestApp, workspaceKey: string) {
  return (method: 'GET' | 'POST', url: string, payload?: object) =>
    t().app.inject({
      method,
      url,
      headers: { authorization: `${workspaceKey}:3f1c2f4e-0000-4000-8000-000000000000` },
      ...(payload === undefined ? {} : { payload }),
    });
}

/**
 * The older inbox client (@suprsend/js-inbox 2.3.1, unchanged, which @suprsend/react-inbox 3 and
 * @suprsend/web-inbox wrap) against Herald, in Node: it uses fetch and socket.io-client only. Its hosts
 * point at Herald; the subscriber id is what the customer's server computes with the inbox secret.
 */
describe('the older inbox client @suprsend/js-inbox', () => {
  const { t, base: address, cleanups } = useListeningInboxApp();

  it('fetches the list and counts, hears a new notification, marks read, seen, archived and all read over the same feed', async () => {
    const inbox = await inboxWorkspace(t);
    const secret = await makeInboxSecret(t, inbox);
    const [earlier] = await inbox.notify(['ann'], { text: 'an earlier one', tags: ['billing'] });
    const [bens] = await inbox.notify(['ben'], { text: 'not for ann' });

    const client = new SuprSendInbox(inbox.ws.workspaceKey, {
      host: { apiHost: address(), socketHost: address() },
      stores: [
        { storeId: 'all', label: 'All' },
        { storeId: 'billing', label: 'Billing', query: { tags: 'billing' } },
      ],
    });
    client.identifyUser('ann', subscriberIdOf(secret, 'ann'));
    cleanups.push(() => client.resetUser());
    const socket = client.client!.socket;
    await waitFor(async () => socket.connected, 5000, 'the client’s socket');

    await client.feed.fetchNotifications();
    await waitFor(async () => client.feed.data?.unseenCount === 1, 5000, 'the counts');
    const stores = () => client.feed.data!.stores as Record<string, { notifications: Held[]; unseenCount: number }>;
    expect(stores().all!.notifications.map((n) => n.n_id)).toEqual([earlier]);
    expect(stores().all!.notifications[0]!.message.text).toBe('an earlier one');
    expect(stores().all!.unseenCount).toBe(1);
    expect(stores().billing!.unseenCount).toBe(1);
    expect(client.feed.data!.hasNext).toBe(false);

    // A new notification: the socket's new_notification names it; the client fetches it (after its own 1 s).
    const arrived = new Promise<Held>((resolve) => client.emitter.on('new_notification', (n) => resolve(n as Held)));
    const [fresh] = await inbox.notify(['ann'], { text: 'just now' });
    const notification = await arrived;
    expect(notification).toMatchObject({ n_id: fresh, message: { text: 'just now' }, seen_on: null });
    expect(stores().all!.notifications.map((n) => n.n_id)).toEqual([fresh, earlier]);
    expect(client.feed.data!.unseenCount).toBe(2);

    // Mark read: the message is read in Herald (the web SDK 4's feed and GET /v1/message/ agree).
    await client.feed.markRead(fresh!);
    await waitFor(
      async () => (await messages(t, inbox.ws, `?message_id=${fresh}`)).results[0]?.is_read === true,
      5000,
      'the read',
    );
    // The server's notification_updated reaches the client, which refetches the counts.
    await waitFor(async () => stores().all!.unseenCount === 1, 5000, 'counts after read');

    // Opening the bell: the badge goes to 0, what it counted is seen.
    await client.feed.markAllSeen();
    await waitFor(
      async () => (await messages(t, inbox.ws, `?message_id=${earlier}`)).results[0]?.seen_at != null,
      5000,
      'the seen',
    );
    const api = olderClient(t, inbox.ws.workspaceKey);
    const who = `subscriber_id=${subscriberIdOf(secret, 'ann')}&distinct_id=ann&tenant_id=default`;
    expect((await api('GET', `/notification_count/?${who}`)).json()).toEqual({ ss_bell_count: 0 });

    client.feed.markArchived(earlier!);
    await waitFor(
      async () => (await messages(t, inbox.ws, `?message_id=${earlier}`)).results[0]?.is_archived === true,
      5000,
      'the archive',
    );
    expect(stores().all!.notifications.map((n) => n.n_id)).toEqual([fresh]);

    const [third] = await inbox.notify(['ann'], { text: 'third' });
    await client.feed.markAllRead();
    await waitFor(
      async () => (await messages(t, inbox.ws, `?message_id=${third}`)).results[0]?.is_read === true,
      5000,
      'all read',
    );
    const counts = await api('GET', `/notification_count/?${who}&stores=${storeParam([{ store_id: 'all' }])}`);
    // Read implies seen in Herald's feed (docs/spec/engine.md §5): the badge is 0 too.
    expect(counts.json()).toEqual({ ss_bell_count: 0, all: 0 });
    // ben's notification is untouched.
    expect((await messages(t, inbox.ws, `?message_id=${bens}`)).results[0]).toMatchObject({ is_read: false });
  });

  it('pages by number over what existed at the first read', async () => {
    const inbox = await inboxWorkspace(t);
    const secret = await makeInboxSecret(t, inbox);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(...(await inbox.notify(['ann'])));
    const api = olderClient(t, inbox.ws.workspaceKey);
    const who = `subscriber_id=${subscriberIdOf(secret, 'ann')}&distinct_id=ann`;
    const before = Date.now();
    await inbox.notify(['ann']);
    const first = await api('GET', `/notifications/?${who}&page_no=1&page_size=2&before=${before}`);
    expect(first.statusCode).toBe(200);
    expect(first.json().meta).toEqual({ current_page: 1, total_pages: 2, total_count: 3 });
    const second = await api('GET', `/notifications/?${who}&page_no=2&page_size=2&before=${before}`);
    const seen = [...first.json().results, ...second.json().results].map((n: Held) => n.n_id);
    expect(seen).toEqual([...ids].reverse());
    const one = await api('GET', `/notification/${ids[0]}/?${who}`);
    expect(one.json()).toMatchObject({ data: { n_id: ids[0], seen_on: null, archived: false } });
  });

  it('refuses a subscriber id signed for another user, a bad HMAC, another workspace, a rotated secret: 401', async () => {
    const inbox = await inboxWorkspace(t);
    const other = await inboxWorkspace(t);
    const noSecret = await inboxWorkspace(t);
    const secret = await makeInboxSecret(t, inbox);
    const otherSecret = await makeInboxSecret(t, other);
    const [annsOwn] = await inbox.notify(['ann']);
    const api = olderClient(t, inbox.ws.workspaceKey);
    const asAnn = (subscriberId: string, key = inbox.ws.workspaceKey) =>
      olderClient(t, key)('GET', `/notifications/?distinct_id=ann&subscriber_id=${subscriberId}`);

    expect((await asAnn(subscriberIdOf(secret, 'ann'))).statusCode).toBe(200);
    const refusals = {
      'signed for ben': await asAnn(subscriberIdOf(secret, 'ben')),
      'a bad HMAC': await asAnn(subscriberIdOf(secret, 'ann').slice(0, -2) + 'xx'),
      "another workspace's secret": await asAnn(subscriberIdOf(otherSecret, 'ann')),
      "another workspace's key": await asAnn(subscriberIdOf(secret, 'ann'), other.ws.workspaceKey),
      'a workspace without a secret': await asAnn(subscriberIdOf(secret, 'ann'), noSecret.ws.workspaceKey),
      'no key': await olderClient(t, '')('GET', `/notifications/?distinct_id=ann&subscriber_id=x`),
    };
    for (const [what, answer] of Object.entries(refusals)) {
      expect(answer.statusCode, what).toBe(401);
      expect(answer.json(), what).toMatchObject({ code: 401, message: 'authentication failed' });
    }
    // ann of the other workspace, with its own valid credentials, reads none of this workspace's notifications.
    const otherAnn = `distinct_id=ann&subscriber_id=${subscriberIdOf(otherSecret, 'ann')}`;
    const crossed = await olderClient(t, other.ws.workspaceKey)('GET', `/notification/${annsOwn}/?${otherAnn}`);
    expect(crossed.statusCode).toBe(404);
    const crossAction = await olderClient(t, other.ws.workspaceKey)('POST', `/notification/${annsOwn}/action`, {
      action: 'read',
      distinct_id: 'ann',
      subscriber_id: subscriberIdOf(otherSecret, 'ann'),
    });
    expect(crossAction.statusCode).toBe(404);
    // ben, signed for himself, cannot act on ann's notification.
    const bensAction = await api('POST', `/notification/${annsOwn}/action`, {
      action: 'read',
      distinct_id: 'ben',
      subscriber_id: subscriberIdOf(secret, 'ben'),
    });
    expect(bensAction.statusCode).toBe(404);
    expect((await messages(t, inbox.ws, `?message_id=${annsOwn}`)).results[0]).toMatchObject({ is_read: false });

    // An open socket of the client, then the secret is rotated: the old subscriber id stops working at once.
    const client = new SuprSendInbox(inbox.ws.workspaceKey, { host: { apiHost: address(), socketHost: address() } });
    client.identifyUser('ann', subscriberIdOf(secret, 'ann'));
    cleanups.push(() => client.resetUser());
    const socket = client.client!.socket;
    await waitFor(async () => socket.connected, 5000, 'the client’s socket');
    const rotated = await makeInboxSecret(t, inbox);
    expect(rotated).not.toBe(secret);
    expect((await asAnn(subscriberIdOf(secret, 'ann'))).statusCode).toBe(401);
    expect((await asAnn(subscriberIdOf(rotated, 'ann'))).statusCode).toBe(200);
    await waitFor(async () => !socket.connected, 5000, 'the socket closed after the rotation');
    client.resetUser();

    // A socket handshake with a bad subscriber id is refused.
    const refused = new SuprSendInbox(inbox.ws.workspaceKey, { host: { apiHost: address(), socketHost: address() } });
    refused.identifyUser('ann', subscriberIdOf(secret, 'ben'));
    cleanups.push(() => refused.resetUser());
    const error = await new Promise<Error>((resolve) => refused.client!.socket.on('connect_error', resolve));
    expect(error.message).toBe('Authentication Error: wrong auth token');
    refused.resetUser();
  });

  it('answers bad input with a 400 in the documented error shape', async () => {
    const inbox = await inboxWorkspace(t);
    const secret = await makeInboxSecret(t, inbox);
    const api = olderClient(t, inbox.ws.workspaceKey);
    const who = `distinct_id=ann&subscriber_id=${subscriberIdOf(secret, 'ann')}`;
    const body = { distinct_id: 'ann', subscriber_id: subscriberIdOf(secret, 'ann') };
    const [id] = await inbox.notify(['ann']);
    const bad = {
      'page_size 0': await api('GET', `/notifications/?${who}&page_size=0`),
      'page_no x': await api('GET', `/notifications/?${who}&page_no=x`),
      'store not JSON': await api('GET', `/notifications/?${who}&store=%7Bnope`),
      'stores not a list': await api('GET', `/notification_count/?${who}&stores=${storeParam({ store_id: 'a' })}`),
      'no subscriber_id': await api('GET', `/notifications/?distinct_id=ann`),
      'an unknown action': await api('POST', `/notification/${id}/action`, { ...body, action: 'explode' }),
      'no body': await api('POST', '/mark-all-read/'),
    };
    for (const [what, answer] of Object.entries(bad)) {
      expect(answer.statusCode, what).toBe(400);
      expect(answer.json(), what).toMatchObject({ code: 400, message: expect.any(String) });
    }
    const missing = await api('GET', `/notification/01NOPE/?${who}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 404, message: "notification '01NOPE' not found" });
  });

  it("records a click at collectorHost (the path carries the subscriber proof) and refuses another user's, a bad proof, bad input", async () => {
    const inbox = await inboxWorkspace(t);
    const secret = await makeInboxSecret(t, inbox);
    const [annsOwn] = await inbox.notify(['ann'], { text: 'clicked' });
    const [annsOther] = await inbox.notify(['ann'], { text: 'left alone' });
    const [bens] = await inbox.notify(['ben']);
    const annsProof = subscriberIdOf(secret, 'ann');
    const client = new SuprSendInbox(inbox.ws.workspaceKey, {
      host: { apiHost: address(), socketHost: address(), collectorHost: `${address()}/collector/ann/${annsProof}` },
    });
    client.identifyUser('ann', annsProof);
    cleanups.push(() => client.resetUser());
    await client.feed.fetchNotifications();
    await waitFor(async () => client.feed.data?.unseenCount === 2, 5000, 'the list');
    const heard: unknown[] = [];
    client.client!.socket.on('notification_updated', (data: unknown) => heard.push(data));

    // The client's own click: $notification_clicked to {collectorHost}/event/ with `workspace key:` and no user.
    await client.feed.markClicked(annsOwn!);
    await waitFor(
      async () => (await messages(t, inbox.ws, `?message_id=${annsOwn}`)).results[0]?.clicked_at != null,
      5000,
      'the click',
    );
    const clicked = (await messages(t, inbox.ws, `?message_id=${annsOwn}`)).results[0];
    expect(clicked).toMatchObject({ status: 'clicked', is_read: true, clicked_at: expect.any(String) });
    // The feed shows it as the web SDK 4's own click (interacted), and the older clients' sockets hear it.
    const api = olderClient(t, inbox.ws.workspaceKey);
    const who = `distinct_id=ann&subscriber_id=${annsProof}`;
    expect((await api('GET', `/notification/${annsOwn}/?${who}`)).json().data).toMatchObject({
      interacted_on: expect.any(Number),
      seen_on: expect.any(Number),
    });
    await waitFor(async () => heard.length > 0, 5000, 'notification_updated');
    expect(heard[0]).toEqual({ n_id: annsOwn, type: 'interacted' });

    const click = (path: string, body: object, key = inbox.ws.workspaceKey) =>
      t().app.inject({
        method: 'POST',
        url: `${path}/event/`,
        headers: { authorization: `${key}:`, 'content-type': 'application/json' },
        payload: body,
      });
    const clickOf = (id: string) => ({
      event: '$notification_clicked',
      env: inbox.ws.workspaceKey,
      properties: { id },
    });
    // ann's proof, ben's message: not hers, not found, and left alone.
    const bensByAnn = await click(`/collector/ann/${annsProof}`, clickOf(bens!));
    expect(bensByAnn.statusCode).toBe(404);
    expect(bensByAnn.json()).toMatchObject({ code: 404, message: `notification '${bens}' not found` });
    // ben's id with ann's proof, a bad HMAC, another workspace's key: the older API's one 401.
    const other = await inboxWorkspace(t);
    await makeInboxSecret(t, other);
    const refusals = {
      "ann's proof for ben": await click(`/collector/ben/${annsProof}`, clickOf(bens!)),
      'a bad HMAC': await click(`/collector/ben/${subscriberIdOf(secret, 'ben').slice(0, -2)}xx`, clickOf(bens!)),
      "another workspace's key": await click(`/collector/ann/${annsProof}`, clickOf(annsOther!), other.ws.workspaceKey),
      'no key': await click(`/collector/ann/${annsProof}`, clickOf(annsOther!), ''),
    };
    for (const [what, answer] of Object.entries(refusals)) {
      expect(answer.statusCode, what).toBe(401);
      expect(answer.json(), what).toMatchObject({ code: 401, message: 'authentication failed' });
    }
    for (const id of [bens, annsOther])
      expect((await messages(t, inbox.ws, `?message_id=${id}`)).results[0]).toMatchObject({
        clicked_at: null,
        is_read: false,
      });

    const bad = {
      'another event': await click(`/collector/ann/${annsProof}`, { ...clickOf(annsOther!), event: '$identify' }),
      'no properties': await click(`/collector/ann/${annsProof}`, { event: '$notification_clicked' }),
      'an id not a string': await click(`/collector/ann/${annsProof}`, {
        event: '$notification_clicked',
        properties: { id: 7 },
      }),
      'an empty id': await click(`/collector/ann/${annsProof}`, clickOf('')),
    };
    for (const [what, answer] of Object.entries(bad)) {
      expect(answer.statusCode, what).toBe(400);
      expect(answer.json(), what).toMatchObject({ code: 400, message: expect.any(String) });
    }
    // The browser's preflight for the click is answered.
    const preflight = await t().app.inject({ method: 'OPTIONS', url: `/collector/ann/${annsProof}/event/` });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization, content-type');
  });

  it('keeps the inbox secret sealed at rest, masked on read, replaced by POST', async () => {
    const inbox = await inboxWorkspace(t);
    const url = `/management/v1/${inbox.ws.slug}/inbox_secret/`;
    const read = () => t().app.inject({ method: 'GET', url, headers: inbox.ws.management });
    const none = await read();
    expect(none.statusCode).toBe(404);
    const secret = await makeInboxSecret(t, inbox);
    const shown = await read();
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual({ secret: expect.stringContaining('****'), created_at: expect.any(String) });
    expect(shown.body).not.toContain(secret.slice(10));
    const stored = await t()
      .db.selectFrom('inbox_secrets')
      .selectAll()
      .where('workspace_id', '=', inbox.ws.workspaceId)
      .executeTakeFirstOrThrow();
    expect(stored.secret_ciphertext).not.toContain(secret.slice(10));
    // A base-surface credential (the workspace's own API key) is not a management credential.
    const base = await t().app.inject({ method: 'GET', url, headers: inbox.ws.base });
    expect(base.statusCode).toBe(401);
    // Replaced: a new secret, shown whole once.
    const replaced = await makeInboxSecret(t, inbox);
    expect(replaced).not.toBe(secret);
    expect((await read()).json().secret).toBe(`${replaced.slice(0, 8)}${'*'.repeat(16)}${replaced.slice(-4)}`);
  });
});
