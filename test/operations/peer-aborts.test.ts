import http2 from 'node:http2';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { HttpPeer } from '../support/http-peer.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The providers' test peer (test/support/http-peer.ts) when a client goes away in the middle of a
 * request body, as a provider call does when its timeout fires: reading the body fails, and that
 * must not become an unhandled rejection in the test process (docs/testing.md, "The 'Unhandled
 * Errors' run"). The peer goes on answering.
 */
describe('the HTTP test peer, a client gone mid-body', () => {
  async function watched(work: () => Promise<void>) {
    const escaped: unknown[] = [];
    const onRejection = (error: unknown) => escaped.push(error);
    process.on('unhandledRejection', onRejection);
    try {
      await work();
      await sleep(200);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
    return escaped.map(String);
  }

  it('HTTP/1.1', async () => {
    const peer = await HttpPeer.start();
    try {
      const escaped = await watched(async () => {
        const { port } = new URL(peer.url);
        const socket = net.connect(Number(port), '127.0.0.1');
        await new Promise((resolve) => socket.once('connect', resolve));
        socket.write(
          'POST /hook HTTP/1.1\r\nhost: peer\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":',
        );
        await sleep(100);
        socket.destroy();
      });
      expect(escaped).toEqual([]);
      expect((await fetch(`${peer.url}/after`, { method: 'POST', body: '{}' })).status).toBe(200);
    } finally {
      await peer.close();
    }
  });

  it('HTTP/2', async () => {
    const peer = await HttpPeer.start({ http2: true });
    try {
      const escaped = await watched(async () => {
        const session = http2.connect(peer.url);
        session.on('error', () => {});
        const stream = session.request({ ':method': 'POST', ':path': '/hook', 'content-length': '100' });
        stream.on('error', () => {});
        stream.write('{"a":');
        await sleep(100);
        stream.close(http2.constants.NGHTTP2_CANCEL);
        await sleep(50);
        session.destroy();
      });
      expect(escaped).toEqual([]);
    } finally {
      await peer.close();
    }
  });
});
