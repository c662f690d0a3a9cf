import type { FastifyInstance } from 'fastify';
import { Server } from 'socket.io';
import { inboxTokenChecker, inboxWorkspacesChanged, verifyInboxConnection } from '../auth/inbox-token.js';
import { feedOwner } from '../services/feed.js';
import { legacyFeedOwner } from '../services/legacy-inbox.js';
import { HttpError } from '../errors.js';
import { readInboxEvent, type InboxEvent } from '../domain/inbox-events.js';

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

/** Where credential changes are heard (src/auth/credential-cache.ts): every instance's, through its listener. */
export interface CredentialChanges {
  onChange(handler: (tags: readonly string[] | 'all') => void): void;
}

/** What an open socket was admitted with: checked again when its workspace's keys change, closed at `exp`. */
interface SocketCredentials {
  workspaceId: number;
  headers?: { authorization?: string; signature?: string };
  /** An older inbox client's: its workspace key and signed subscriber id. */
  legacy?: {
    authorization: string | undefined;
    who: { distinct_id: string; subscriber_id: string; tenant_id?: string };
  };
  expiry?: NodeJS.Timeout;
}

// setTimeout's longest delay (about 24.8 days): a later `exp` is waited for in several steps.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The socket.io room of one subscriber's feed in one tenant. */
const feedRoom = (workspaceId: number, distinctId: string, tenantId: string) =>
  JSON.stringify([workspaceId, distinctId, tenantId]);

/** The room of the same feed for the older inbox clients (src/base/legacy-inbox.ts), who hear other event names. */
const legacyRoom = (workspaceId: number, distinctId: string, tenantId: string) =>
  JSON.stringify([workspaceId, distinctId, tenantId, 'legacy']);

/** A feed event as the older inbox clients hear it (`@suprsend/js-inbox` 2), or undefined when they have none for it. */
function legacyEvent(event: InboxEvent): [string, Record<string, unknown>] | undefined {
  const data = event.data;
  switch (event.event) {
    case 'new_notification':
      return ['new_notification', { n_id: data.n_id }];
    case 'notification_update':
      return ['notification_updated', { n_id: data.n_id, type: data.action }];
    case 'reset_badge':
      return ['update_badge', {}];
    case 'bulk_notification_update':
      return data.action === 'read' && data.notification_ids === 'all' ? ['mark_all_read', {}] : undefined;
  }
}

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
export function attachFeedSockets(
  app: FastifyInstance,
  source: FeedEventSource,
  credentialChanges: CredentialChanges,
): Server {
  const io = new Server(app.server, {
    path: '/socket.io/',
    serveClient: false,
    // Auth is the token in the handshake, never a cookie: any page may connect.
    cors: { origin: '*' },
  });
  let closing = false;
  // Counts credential changes heard: a handshake checked while one arrived is checked again.
  let changesHeard = 0;
  /**
   * A revoked or expired token is refused for good: a server-side disconnect, which socket.io clients do not
   * reconnect after, and any new handshake with that token fails the check above.
   */
  const refuse = (socket: { disconnect(close: boolean): unknown }) => socket.disconnect(true);
  const expireAt = (socket: Parameters<Parameters<typeof io.use>[0]>[0], expiresAt: number) => {
    const credentials = socket.data as SocketCredentials;
    const wait = expiresAt - Date.now();
    if (wait <= 0) return refuse(socket);
    credentials.expiry = setTimeout(() => expireAt(socket, expiresAt), Math.min(wait, LONGEST_TIMER_MS));
    credentials.expiry.unref();
  };
  io.use((socket, next) => {
    if (closing) return dropWhileClosing(socket);
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    if (auth.subscriber_id !== undefined) {
      // An older inbox client: the workspace key and the subscriber id the inbox secret signs (no expiry).
      const legacy = {
        authorization: text(auth.authorization),
        who: {
          distinct_id: text(auth.distinct_id) ?? '',
          subscriber_id: text(auth.subscriber_id) ?? '',
          tenant_id: text(auth.tenant_id),
        },
      };
      legacyFeedOwner(app.db, app.secretBox, legacy.authorization, legacy.who)
        .then((owner) => {
          if (closing) return dropWhileClosing(socket);
          socket.data = { workspaceId: owner.workspaceId, legacy } satisfies SocketCredentials;
          void socket.join(legacyRoom(owner.workspaceId, owner.distinctId, owner.tenantId));
          next();
        })
        .catch(() => next(new Error(WRONG_TOKEN)));
      return;
    }
    const headers = { authorization: text(auth.authorization), signature: text(auth['x-ss-signature']) };
    const check = async (): Promise<Awaited<ReturnType<typeof verifyInboxConnection>>> => {
      const heard = changesHeard;
      const verified = await verifyInboxConnection(app.db, headers);
      return heard === changesHeard ? verified : check();
    };
    check()
      .then(({ subscriber, expiresAt }) => {
        // The check outlived the start of shutdown: a socket joining now would hold the server open.
        if (closing) return dropWhileClosing(socket);
        const owner = feedOwner(subscriber, { distinct_id: text(auth.distinct_id), tenant_id: text(auth.tenant_id) });
        socket.data = { workspaceId: owner.workspaceId, headers } satisfies SocketCredentials;
        socket.on('disconnect', () => clearTimeout((socket.data as SocketCredentials).expiry));
        expireAt(socket, expiresAt);
        void socket.join(feedRoom(owner.workspaceId, owner.distinctId, owner.tenantId));
        next();
      })
      .catch(() => next(new Error(WRONG_TOKEN)));
  });
  // A signing key revoked, a public key deleted or rotated (on any instance): the sockets it admitted are
  // checked again now, as the next HTTP call would be, and the ones that no longer verify are refused.
  credentialChanges.onChange((tags) => {
    changesHeard += 1;
    const workspaces = inboxWorkspacesChanged(tags);
    if (closing || (workspaces !== 'all' && workspaces.size === 0)) return;
    const verifies = inboxTokenChecker(app.db);
    for (const socket of io.of('/').sockets.values()) {
      const credentials = socket.data as SocketCredentials | undefined;
      if (!credentials || (workspaces !== 'all' && !workspaces.has(credentials.workspaceId))) continue;
      const { headers, legacy } = credentials;
      const check = headers
        ? verifies(headers)
        : legacy
          ? legacyFeedOwner(app.db, app.secretBox, legacy.authorization, legacy.who).then(
              () => true,
              (error: unknown) => (error instanceof HttpError && error.status === 401 ? false : Promise.reject(error)),
            )
          : undefined;
      check?.then(
        (ok) => {
          if (!ok) refuse(socket);
        },
        // The database did not answer: the socket stays; the next change or the listener's return checks again.
        (error: unknown) => app.log.warn({ err: error }, 'feed socket credentials could not be checked again'),
      );
    }
  });
  source.onPayload((payload) => {
    const event = readInboxEvent(payload);
    if (!event) return;
    io.to(feedRoom(event.workspaceId, event.distinctId, event.tenantId)).emit(event.event, event.data);
    const legacy = legacyEvent(event);
    if (legacy) io.to(legacyRoom(event.workspaceId, event.distinctId, event.tenantId)).emit(...legacy);
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
