import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io, type Socket } from 'socket.io-client';
import { useTestApp } from '../support/app.js';
import { createDatabase } from '../../src/db/database.js';
import { publishInboxEvents } from '../../src/repositories/inbox-events.js';
import { feedClient, inboxRenderer, inboxWorkspace, type InboxWorkspace } from '../support/inbox.js';
import { baseCall, waitFor } from '../support/engine-drivers.js';

/** A browser's socket as the web SDK opens it, recording every event it hears. */
function connect(base: string, auth: Record<string, unknown>) {
  const heard: { event: string; data: unknown }[] = [];
  const closed: string[] = [];
  const socket: Socket = io(base, { transports: ['websocket'], auth, reconnection: false, forceNew: true });
  socket.onAny((event: string, data: unknown) => heard.push({ event, data }));
  socket.on('disconnect', (reason) => closed.push(reason));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return { socket, heard, closed, opened };
}

describe('in-app feed real time (socket.io)', () => {
  const t = useTestApp({}, { engine: { engine: { render: inboxRenderer } } });
  let base = '';
  const sockets: Socket[] = [];
  const open = async (auth: Record<string, unknown>) => {
    const client = connect(base, auth);
    sockets.push(client.socket);
    await client.opened;
    return client;
  };
  const sdkAuth = async (inbox: InboxWorkspace, distinctId: string, tenantId = 'default') => ({
    authorization: inbox.publicKey,
    'x-ss-signature': await inbox.mint(distinctId),
    distinct_id: distinctId,
    tenant_id: tenantId,
    schema: '1',
  });

  beforeAll(async () => {
    base = await t().app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(() => {
    for (const socket of sockets) socket.disconnect();
  });

  it('refuses a connection without a valid user token, with the message the web SDK refreshes its token on', async () => {
    const inbox = await inboxWorkspace(t);
    const other = await inboxWorkspace(t);
    const refused = [
      {},
      { authorization: inbox.publicKey },
      {
        authorization: inbox.publicKey,
        'x-ss-signature': await inbox.mint('ann', { expiresIn: Math.floor(Date.now() / 1000) - 5 }),
      },
      { authorization: inbox.publicKey, 'x-ss-signature': await other.mint('ann') },
      { ...(await sdkAuth(inbox, 'ann')), distinct_id: 'ben' },
    ];
    for (const auth of refused) {
      const client = connect(base, auth);
      sockets.push(client.socket);
      await expect(client.opened).rejects.toThrow('Authentication Error: wrong auth token');
    }
  });

  it('sends new_notification to the recipient’s sockets only, then each state change', async () => {
    const inbox = await inboxWorkspace(t);
    const other = await inboxWorkspace(t);
    const ann = await open(await sdkAuth(inbox, 'ann'));
    const annAgain = await open(await sdkAuth(inbox, 'ann'));
    const ben = await open(await sdkAuth(inbox, 'ben'));
    const annElsewhere = await open(await sdkAuth(other, 'ann'));
    const annOtherTenant = await open(await sdkAuth(inbox, 'ann', 'acme'));

    const [id] = await inbox.notify(['ann'], { text: 'hello' });
    const expected = { event: 'new_notification', data: { n_id: id } };
    await waitFor(async () => ann.heard.length >= 1 && annAgain.heard.length >= 1, 5000, 'new_notification');
    expect(ann.heard).toEqual([expected]);
    expect(annAgain.heard).toEqual([expected]);

    const feed = feedClient(t, inbox.publicKey, await inbox.mint('ann'));
    await feed('PATCH', `/v1/feed/notifications/${id}/read`);
    await waitFor(async () => ann.heard.length >= 2, 5000, 'notification_update');
    expect(ann.heard[1]).toEqual({ event: 'notification_update', data: { n_id: id, action: 'read' } });
    // The server side's engagement API reaches the browsers too.
    const viaApi = await baseCall(t, inbox.ws)('PATCH', '/v1/bulk/message/', {
      messages: [{ message_id: id, action: 'archived' }],
    });
    expect(viaApi.statusCode).toBe(202);
    await waitFor(async () => ann.heard.length >= 3, 5000, 'notification_update from /v1/bulk/message/');
    expect(ann.heard.splice(2, 1)).toEqual([{ event: 'notification_update', data: { n_id: id, action: 'archived' } }]);

    // Already seen (read implies seen): nothing changes, and no event goes out.
    await feed('POST', '/v1/feed/bulk/notifications/seen', { notification_ids: [id] });
    const [second] = await inbox.notify(['ann'], { text: 'second' });
    await feed('POST', '/v1/feed/bulk/notifications/seen', { notification_ids: [id, second] });
    await feed('PATCH', '/v1/feed/mark_all_read');
    await feed('PATCH', '/v1/feed/reset_bell_count');
    await waitFor(async () => ann.heard.length >= 6, 5000, 'bulk updates and reset');
    expect(ann.heard.slice(2)).toEqual([
      { event: 'new_notification', data: { n_id: second } },
      { event: 'bulk_notification_update', data: { notification_ids: [second], action: 'seen' } },
      { event: 'bulk_notification_update', data: { notification_ids: 'all', action: 'read' } },
      { event: 'reset_badge', data: {} },
    ]);

    // Give stray events time to arrive before asserting none did.
    await inbox.notify(['ben']);
    await waitFor(async () => ben.heard.length >= 1, 5000, 'ben’s notification');
    expect(ben.heard.map((h) => h.event)).toEqual(['new_notification']);
    expect(annElsewhere.heard).toEqual([]);
    expect(annOtherTenant.heard).toEqual([]);
    expect(ann.heard).toHaveLength(6);
  });

  it('hears what another process published (PostgreSQL: its own connections; embedded: the one process)', async () => {
    const inbox = await inboxWorkspace(t);
    const ann = await open(await sdkAuth(inbox, 'ann'));
    // A second pool is what a worker process is to PostgreSQL: other connections, other backends.
    const worker =
      t().databaseKind === 'postgres'
        ? createDatabase({ url: process.env.DATABASE_URL!, poolSize: 1 })
        : { db: { transaction: () => t().db.transaction(), destroy: async () => {} } };
    try {
      await worker.db.transaction().execute((trx) =>
        publishInboxEvents(trx, [
          {
            workspaceId: inbox.ws.workspaceId,
            distinctId: 'ann',
            tenantId: 'default',
            event: 'bulk_notification_update',
            data: {
              notification_ids: Array.from(
                { length: 250 },
                (_, i) => `01HZZZZZZZZZZZZZZZZZZZZ${String(i).padStart(3, '0')}`,
              ),
              action: 'seen',
            },
          },
        ]),
      );
    } finally {
      await worker.db.destroy();
    }
    // 250 ids are more than one NOTIFY holds: they arrive as several events, all of them.
    await waitFor(async () => ann.heard.length >= 3, 5000, 'events from another connection');
    const ids = ann.heard.flatMap((h) => (h.data as { notification_ids: string[] }).notification_ids);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
  });
  describe('a token revoked or expired while its socket is open (issue 25)', () => {
    const management = (inbox: InboxWorkspace, method: 'GET' | 'DELETE' | 'PATCH', path: string) =>
      t().app.inject({ method, url: `/management/v1/${inbox.ws.slug}/${path}`, headers: inbox.ws.management });
    const refusedForGood = async (client: Awaited<ReturnType<typeof open>>, auth: Record<string, unknown>) => {
      await waitFor(async () => client.closed.length > 0, 5000, 'the socket closed by the server');
      // A server-side disconnect: socket.io clients (the web SDK) do not reconnect after it…
      expect(client.closed).toEqual(['io server disconnect']);
      // …and a new handshake with the same token is refused.
      const again = connect(base, auth);
      sockets.push(again.socket);
      await expect(again.opened).rejects.toThrow('Authentication Error: wrong auth token');
    };

    it('closes the sockets a deleted signing key admitted, and hears nothing more on them', async () => {
      const inbox = await inboxWorkspace(t);
      const other = await inboxWorkspace(t);
      const annAuth = await sdkAuth(inbox, 'ann');
      const ann = await open(annAuth);
      const control = await open(await sdkAuth(other, 'ann'));
      const [uid] = (await management(inbox, 'GET', 'ws_signing_key/'))
        .json()
        .results.map((k: { uid: string }) => k.uid);
      expect((await management(inbox, 'DELETE', `ws_signing_key/${uid}/`)).statusCode).toBe(204);
      await refusedForGood(ann, annAuth);

      await inbox.notify(['ann'], { text: 'after revocation' });
      const [id] = await other.notify(['ann'], { text: 'control' });
      await waitFor(async () => control.heard.length >= 1, 5000, 'the unrevoked socket’s notification');
      expect(control.heard).toEqual([{ event: 'new_notification', data: { n_id: id } }]);
      expect(control.closed).toEqual([]);
      expect(ann.heard).toEqual([]);
    });

    it('closes the sockets of a deleted or rotated public key, and only those', async () => {
      const inbox = await inboxWorkspace(t);
      const [publicKeyId] = (await management(inbox, 'GET', 'ws_public_key/'))
        .json()
        .results.map((k: { id: string }) => k.id);
      const annAuth = await sdkAuth(inbox, 'ann');
      const ann = await open(annAuth);
      expect((await management(inbox, 'PATCH', `ws_public_key/${publicKeyId}/rotate/`)).statusCode).toBe(202);
      await refusedForGood(ann, annAuth);

      const rotated = (await management(inbox, 'GET', 'ws_public_key/')).json().results[0].api_key as string;
      const benAuth = { ...(await sdkAuth(inbox, 'ben')), authorization: rotated };
      const ben = await open(benAuth);
      const [id] = await inbox.notify(['ben'], { text: 'with the new key' });
      await waitFor(async () => ben.heard.length >= 1, 5000, 'the new key’s socket hears');
      expect(ben.heard).toEqual([{ event: 'new_notification', data: { n_id: id } }]);
      expect((await management(inbox, 'DELETE', `ws_public_key/${publicKeyId}/`)).statusCode).toBe(204);
      await refusedForGood(ben, benAuth);
    });

    it('closes a socket when its token’s exp passes; a longer-lived one stays open', async () => {
      const inbox = await inboxWorkspace(t);
      const exp = Math.floor(Date.now() / 1000) + 3;
      const shortAuth = {
        ...(await sdkAuth(inbox, 'ann')),
        'x-ss-signature': await inbox.mint('ann', { expiresIn: exp }),
      };
      const short = await open(shortAuth);
      const long = await open(await sdkAuth(inbox, 'ann'));
      await waitFor(async () => short.closed.length > 0, 6000, 'the socket closed at exp');
      expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
      await refusedForGood(short, shortAuth);

      const [id] = await inbox.notify(['ann'], { text: 'after exp' });
      await waitFor(async () => long.heard.length >= 1, 5000, 'the unexpired socket hears');
      expect(long.heard).toEqual([{ event: 'new_notification', data: { n_id: id } }]);
      expect(long.closed).toEqual([]);
      expect(short.heard).toEqual([]);
    });
  });
});
