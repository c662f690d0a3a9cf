import { SuprSend } from '@suprsend/web-sdk';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { buildTestApp, type TestApp } from '../support/app.js';
import { waitFor } from '../support/engine-drivers.js';
import { inboxRenderer, inboxWorkspace } from '../support/inbox.js';

type Held = { n_id: string; message: { text: string } };

/**
 * A restart or a deploy under an open inbox: the server shuts down (its socket.io transports closed) and another
 * comes up at the same address, over the same database. The official web SDK (@suprsend/web-sdk 4.x, unchanged,
 * its own reconnection settings) reconnects by itself and receives the next notification in real time, without
 * the page doing anything.
 */
describe('the web SDK’s live inbox across a server restart', () => {
  it('reconnects by itself and receives the next notification', { timeout: 180_000 }, async () => {
    const first = await buildTestApp({}, { engine: { engine: { render: inboxRenderer } } });
    let current: TestApp = first;
    let second: Awaited<ReturnType<typeof buildApp>> | undefined;
    let suprsend: SuprSend | undefined;
    try {
      const base = await first.app.listen({ host: '127.0.0.1', port: 0 });
      const port = Number(new URL(base).port);
      const inbox = await inboxWorkspace(() => current);
      suprsend = new SuprSend(inbox.publicKey, { host: base });
      await suprsend.identify('ann', await inbox.mint('ann'));
      const feed = suprsend.feeds.initialize({ host: { apiHost: base, socketHost: base }, pageSize: 10 });
      feed.initializeSocketConnection();
      const socket = (feed as unknown as { socket: { connected: boolean; on(event: string, f: () => void): void } })
        .socket;
      await waitFor(async () => socket.connected, 10_000, 'the SDK’s socket');
      const received: Held[] = [];
      feed.emitter.on('feed.new_notification', (notification: Held) => received.push(notification));
      const [before] = await inbox.notify(['ann'], { text: 'before the restart' });
      await waitFor(async () => received.some((n) => n.n_id === before), 10_000, 'the first notification');

      // The restart: this server shuts down as on SIGTERM, and another takes its address.
      await first.app.close();
      await waitFor(async () => !socket.connected, 10_000, 'the SDK to see the server go');
      second = await buildApp({
        config: first.config,
        db: first.db,
        databaseKind: first.databaseKind,
        pglite: first.pglite,
        secretBox: first.secretBox,
        queue: first.engineRuntime!.queue,
      });
      current = { ...first, app: second };
      await second.listen({ host: '127.0.0.1', port });
      const listening = Date.now();
      // The SDK's own backoff (1 s, doubling to at most 10 s) brings it back.
      await waitFor(async () => socket.connected, 30_000, 'the SDK to reconnect');
      const reconnectedMs = Date.now() - listening;

      const [after] = await inbox.notify(['ann'], { text: 'after the restart' });
      await waitFor(async () => received.some((n) => n.n_id === after), 10_000, 'the notification after the restart');
      expect(received.find((n) => n.n_id === after)!.message.text).toBe('after the restart');
      expect(reconnectedMs).toBeLessThan(30_000);
      feed.remove();
    } finally {
      await suprsend?.reset({ unsubscribePush: false }).catch(() => undefined);
      await second?.close();
      await first.engineRuntime?.stop();
      await first.db.destroy();
    }
  });
});
