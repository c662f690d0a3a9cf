import { SuprSend } from '@suprsend/web-sdk';
import { describe, expect, it } from 'vitest';
import { baseCall, messages, waitFor } from '../support/engine-drivers.js';
import { inboxWorkspace, useListeningInboxApp } from '../support/inbox.js';

/** A notification as the SDK holds it (its own types do not resolve under NodeNext). */
type Held = { n_id: string; read_on?: number | null; message: { text: string } };

/**
 * The official web SDK (@suprsend/web-sdk 4.x, unchanged) against Herald, in Node: it uses fetch,
 * socket.io-client and no browser API for the feed. Its hosts point at Herald; nothing else is set.
 */
describe('the official @suprsend/web-sdk inbox', () => {
  const { t, base: address, cleanups } = useListeningInboxApp();

  it('identifies, fetches the feed and counts, receives a new notification in real time, marks it read', async () => {
    const inbox = await inboxWorkspace(t);
    const [earlier] = await inbox.notify(['ann'], { text: 'an earlier one', tags: ['billing'] });
    await inbox.notify(['ben'], { text: 'not for ann' });

    const suprsend = new SuprSend(inbox.publicKey, { host: address() });
    cleanups.push(() => suprsend.reset({ unsubscribePush: false }));
    const identified = await suprsend.identify('ann', await inbox.mint('ann'));
    expect(identified).toEqual({ status: 'success', statusCode: 202, body: { success: true } });

    const feed = suprsend.feeds.initialize({
      host: { apiHost: address(), socketHost: address() },
      pageSize: 10,
      stores: [
        { storeId: 'all', label: 'All' },
        { storeId: 'billing', label: 'Billing', query: { tags: 'billing' } },
      ],
    });
    feed.initializeSocketConnection();
    const socket = (feed as unknown as { socket: { connected: boolean } }).socket;
    await waitFor(async () => socket.connected, 5000, 'the SDK’s socket');

    const fetched = await feed.fetch();
    expect(fetched?.status).toBe('success');
    await waitFor(async () => feed.data.meta.badge === 1, 5000, 'the counts');
    expect(feed.data.notifications.map((n: Held) => n.n_id)).toEqual([earlier]);
    expect((feed.data.notifications[0] as Held).message.text).toBe('an earlier one');
    expect(feed.data.pageInfo).toMatchObject({ total: 1, hasMore: false });
    expect(feed.data.meta).toEqual({ badge: 1, all: 1, billing: 1 });

    const arrived = new Promise<{ n_id: string; message: { text: string } }>((resolve) =>
      feed.emitter.on('feed.new_notification', (notification: Held) => resolve(notification)),
    );
    const [fresh] = await inbox.notify(['ann'], { text: 'just now' });
    const notification = await arrived;
    expect(notification).toMatchObject({ n_id: fresh, message: { text: 'just now' }, read_on: null });
    expect(feed.data.notifications.map((n: Held) => n.n_id)).toEqual([fresh, earlier]);
    expect(feed.data.meta).toMatchObject({ badge: 2, all: 2, billing: 1 });

    const read = await feed.markAsRead(fresh!);
    expect(read.status).toBe('success');
    const message = (await messages(t, inbox.ws, `?message_id=${fresh}`)).results[0]!;
    expect(message).toMatchObject({ status: 'read', is_read: true, read_at: expect.any(String) });
    // The server's notification_update reaches the SDK, which refetches the notification and counts.
    await waitFor(async () => feed.data.meta.all === 1, 5000, 'counts after read');
    expect(feed.data.notifications.find((n: Held) => n.n_id === fresh)!.read_on).toEqual(expect.any(Number));

    expect((await feed.resetBadgeCount()).status).toBe('success');
    expect((await feed.markAllAsRead()).status).toBe('success');
    expect((await feed.fetchCount()).body).toEqual({ badge: 0, all: 0, billing: 0 });
    feed.remove();
  });

  it('reports an error (not a crash) when the token is refused', async () => {
    const inbox = await inboxWorkspace(t);
    const other = await inboxWorkspace(t);
    const suprsend = new SuprSend(inbox.publicKey, { host: address() });
    cleanups.push(() => suprsend.reset({ unsubscribePush: false }));
    const identified = await suprsend.identify('ann', await other.mint('ann'));
    expect(identified).toMatchObject({ status: 'error', statusCode: 401 });
  });
  it('registers a browser push subscription with the SDK’s own addWebPush, for the token’s user only (issue 25)', async () => {
    const inbox = await inboxWorkspace(t);
    const suprsend = new SuprSend(inbox.publicKey, { host: address() });
    cleanups.push(() => suprsend.reset({ unsubscribePush: false }));
    expect((await suprsend.identify('ann', await inbox.mint('ann'))).status).toBe('success');
    const subscription = {
      endpoint: 'https://push.example.com/send/abc123',
      expirationTime: null,
      keys: {
        p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
        auth: 'tBHItJI5svbpez7KI4CCXg',
      },
    };
    const added = await suprsend.user.addWebPush(subscription as never);
    expect(added).toMatchObject({ status: 'success', statusCode: 202 });
    const user = await baseCall(t, inbox.ws)('GET', '/v1/user/ann/');
    expect(user.statusCode).toBe(200);
    expect(JSON.stringify(user.json())).toContain(subscription.endpoint);

    // A push endpoint on a private or loopback address is refused before it is stored: 4xx, nothing kept.
    for (const endpoint of [
      'http://127.0.0.1:9/push',
      'https://[::1]/push',
      'http://169.254.169.254/latest',
      'file:///etc/passwd',
    ]) {
      const refused = await suprsend.user.addWebPush({ ...subscription, endpoint } as never);
      expect(refused).toMatchObject({ status: 'error' });
      expect((refused as { statusCode: number }).statusCode).toBe(400);
    }
    // The body names the token's user only: another distinct_id is refused.
    const crossed = await t().app.inject({
      method: 'POST',
      url: '/v2/event',
      headers: { authorization: inbox.publicKey, 'x-ss-signature': await inbox.mint('ann') },
      payload: {
        distinct_id: 'ben',
        $insert_id: 'x1',
        $time: Date.now(),
        $append: { $webpush: subscription, $id_provider: 'vapid' },
      },
    });
    expect(crossed.statusCode).toBe(403);
    expect((await baseCall(t, inbox.ws)('GET', '/v1/user/ben/')).statusCode).toBe(404);
    const after = JSON.stringify((await baseCall(t, inbox.ws)('GET', '/v1/user/ann/')).json());
    expect(after).not.toContain('127.0.0.1');
    expect(after).not.toContain('169.254');
  });
});
