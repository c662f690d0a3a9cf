import type { FastifyInstance } from 'fastify';
import { Server } from 'socket.io';
import { verifyInboxToken } from '../auth/inbox-token.js';
import { feedOwner, readInboxEvent } from '../services/feed.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Real time for the in-app feed (socket.io on the app's own HTTP server). */
    inboxSockets: Server;
  }
}

/** Where published feed events arrive (src/db/notify-listener.ts on the `herald_inbox` channel). */
export interface FeedEventSource {
  onPayload(handler: (payload: string | undefined) => void): void;
}

/** The socket.io room of one subscriber's feed in one tenant. */
const feedRoom = (workspaceId: number, distinctId: string, tenantId: string) =>
  JSON.stringify([workspaceId, distinctId, tenantId]);

// The web SDK asks for a new token (when it can) on exactly this message.
const WRONG_TOKEN = 'Authentication Error: wrong auth token';
/**
 * Shutting down, a connection is dropped, never refused or disconnected in words: socket.io clients (the web SDK)
 * take a server's disconnect or a middleware error as final and stop, but reconnect by themselves, with backoff,
 * after a transport closes — so a tab open across a restart or a deploy is live again once a server answers.
 */
const dropWhileClosing = (socket: { conn: { close(): void } }) => socket.conn.close();

/**
 * socket.io at /socket.io/ on Fastify's server (docs/channels.md, "Real time"). A connection
 * authenticates as a feed call does (the web SDK's `auth`: `authorization` the public key,
 * `x-ss-signature` the user token, `distinct_id`, `tenant_id`) and joins its feed's room; events
 * published by any process reach the room.
 */
export function attachFeedSockets(app: FastifyInstance, source: FeedEventSource): Server {
  const io = new Server(app.server, {
    path: '/socket.io/',
    serveClient: false,
    // Auth is the token in the handshake, never a cookie: any page may connect.
    cors: { origin: '*' },
  });
  let closing = false;
  io.use((socket, next) => {
    if (closing) return dropWhileClosing(socket);
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    verifyInboxToken(app.db, { authorization: text(auth.authorization), signature: text(auth['x-ss-signature']) })
      .then((subscriber) => {
        // The check outlived the start of shutdown: a socket joining now would hold the server open.
        if (closing) return dropWhileClosing(socket);
        const owner = feedOwner(subscriber, { distinct_id: text(auth.distinct_id), tenant_id: text(auth.tenant_id) });
        void socket.join(feedRoom(owner.workspaceId, owner.distinctId, owner.tenantId));
        next();
      })
      .catch(() => next(new Error(WRONG_TOKEN)));
  });
  source.onPayload((payload) => {
    const event = readInboxEvent(payload);
    if (event) io.to(feedRoom(event.workspaceId, event.distinctId, event.tenantId)).emit(event.event, event.data);
  });
  // Fastify's server.close() waits for every open connection, and the onClose hooks run only after
  // it: every transport is closed here, before it, or shutdown waits on the browsers. That includes a
  // socket whose handshake was still being checked when this ran, and one arriving meanwhile.
  io.engine.on('connection', (socket: { close(): void }) => {
    if (closing) socket.close();
  });
  app.addHook('preClose', async () => {
    closing = true;
    // Closes every engine.io client's transport, any namespace, without a socket.io disconnect (which
    // clients would not recover from; io.close() would close the HTTP server too: Fastify does that).
    io.engine.close();
  });
  app.addHook('onClose', async () => {
    io.removeAllListeners();
  });
  return io;
}
