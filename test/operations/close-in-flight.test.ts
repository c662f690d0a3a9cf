import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { io, type Socket } from 'socket.io-client';
import { buildTestApp, type TestApp } from '../support/app.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { webhookVendor } from '../support/faults.js';
import { liveWorkflow, node, trigger } from '../support/engine-drivers.js';
import { inboxWorkspace } from '../support/inbox.js';

const SECRET = 'whsec-close-0123456789abcdef';
const RECIPIENTS = 12;
/** Requests in flight finish in well under this; the queue's stop and the database come after. */
const CLOSE_WITHIN_MS = 10_000;
const HOLD_MS = 600;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Escaped {
  event: 'unhandledRejection' | 'uncaughtException';
  error: unknown;
}

const described = ({ event, error }: Escaped) =>
  `${event}: ${error instanceof Error ? (error.stack ?? error.message) : JSON.stringify(error)}`;

/**
 * Closes apps while every kind of work is in flight, round after round in one process, as a vitest
 * worker with `isolate: false` does from one file to the next: deliveries held by a slow receiver
 * (some outliving the queue's stop grace), runs of a trigger, feed sockets connected and connecting,
 * a segment query, requests on a real socket, and (PostgreSQL) the credential listener reconnecting.
 * app.close() must finish promptly, and nothing may reject or throw unheard afterwards (docs/testing.md,
 * "The 'Unhandled Errors' run").
 * While this file listens, vitest itself stands back (it reports only when it is the one listener).
 */
describe('closing the app while work is in flight', { timeout: 240_000 }, () => {
  const escaped: Escaped[] = [];
  const onRejection = (error: unknown) => escaped.push({ event: 'unhandledRejection', error });
  const onException = (error: unknown) => escaped.push({ event: 'uncaughtException', error });
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);
    receiver = await startWebhookReceiver(SECRET);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
    await receiver?.close();
  });

  /** One app, busy in every way it can be, closed after `delayMs`; resolves once the app, queue and database are closed. */
  async function closeWhileBusy(delayMs: number, hangMs: number) {
    const t: TestApp = await buildTestApp(
      {},
      { engine: { engine: { deliveryTimeoutMs: hangMs + 2000, concurrency: 2, retryDelayScale: 0.001 } } },
    );
    const sockets: Socket[] = [];
    const pending: Promise<unknown>[] = [];
    // Whatever these answer (or fail with, the app going away under them) is not what is tested.
    const inFlight = (work: Promise<unknown>) => pending.push(work.catch(() => undefined));
    try {
      const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const inbox = await inboxWorkspace(() => t);
      const ws = inbox.ws;
      await webhookVendor(() => t, ws, 'email', receiver.url, SECRET);
      await liveWorkflow(() => t, ws, 'mail', [node('send_email', { template: 'note' })]);
      const users = Array.from({ length: RECIPIENTS }, (_, i) => `close-${delayMs}-${hangMs}-${i}`);
      for (const id of users)
        receiver.plan(id, [
          { hangMs, status: 200 },
          { hangMs: 50, status: 500 },
        ]);
      const auth = async (id: string) => ({
        authorization: inbox.publicKey,
        'x-ss-signature': await inbox.mint(id),
        distinct_id: id,
        tenant_id: 'default',
      });
      const connect = async (id: string) => {
        const socket = io(base, {
          transports: ['websocket'],
          auth: await auth(id),
          reconnection: false,
          forceNew: true,
        });
        sockets.push(socket);
        return new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
          // Closed by the server before the handshake was answered.
          socket.io.once('close', (reason) => reject(new Error(reason)));
        });
      };
      await connect(users[0]!);
      await connect(users[1]!);
      // A socket.io client on a namespace Herald does not serve: refused; nothing of it may hold the close.
      const stray = io(`${base}/elsewhere`, { transports: ['websocket'], reconnection: false, forceNew: true });
      sockets.push(stray);
      await new Promise<void>((resolve) => stray.once('connect_error', () => resolve()));

      const mailed = await trigger(() => t, ws, {
        workflow: 'mail',
        recipients: users.map((id) => ({ distinct_id: id, $email: [`${id}@example.com`] })),
      });
      expect(mailed.statusCode, mailed.body).toBe(202);
      const fed = await trigger(() => t, ws, { workflow: 'feed', recipients: users.slice(0, 4) });
      expect(fed.statusCode, fed.body).toBe(202);
      if (t.app.credentialListener?.backendPid) {
        // The listener loses its connection: a reconnect is scheduled or under way when the app closes.
        await sql`select pg_terminate_backend(${t.app.credentialListener.backendPid})`.execute(t.db);
      }
      // Work that is still arriving when close begins: a socket handshake, a segment query, more triggers.
      inFlight(connect(users[2]!));
      inFlight(
        fetch(`${base}/v1/subscriber_list/~/dry_run/`, {
          method: 'POST',
          headers: { ...ws.base, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'select distinct_id from users' }),
        }).then((response) => response.text()),
      );
      for (let i = 0; i < 3; i++)
        inFlight(
          fetch(`${base}/trigger/`, {
            method: 'POST',
            headers: { ...ws.base, 'content-type': 'application/json' },
            body: JSON.stringify({ workflow: 'feed', recipients: users.slice(4, 8) }),
          }).then((response) => response.text()),
        );
      await sleep(delayMs);
      // A feed socket whose handshake is still being checked when close begins: the database is held
      // (every pooled connection in a transaction) so the check waits, while the handshake itself arrives.
      inFlight(
        Promise.all(
          Array.from({ length: t.databaseKind === 'postgres' ? 5 : 1 }, () =>
            t.db.transaction().execute(() => sleep(HOLD_MS)),
          ),
        ),
      );
      inFlight(connect(users[3]!));
      await sleep(150);
    } finally {
      const closed = t.app.close().then(() => true);
      const inTime = await Promise.race([closed, sleep(CLOSE_WITHIN_MS).then(() => false)]);
      // Let a hung close finish once the test's own sockets go, so the failure is the only trace left.
      for (const socket of sockets) socket.disconnect();
      await closed;
      await t.engineRuntime?.stop();
      await t.db.destroy();
      const settled = await Promise.race([
        Promise.all(pending).then(() => true),
        sleep(CLOSE_WITHIN_MS).then(() => false),
      ]);
      expect(settled, `work in flight still pending ${CLOSE_WITHIN_MS} ms after close`).toBe(true);
      expect(inTime, `app.close() still waiting after ${CLOSE_WITHIN_MS} ms (closed after ${delayMs} ms)`).toBe(true);
    }
  }

  it('leaves no unhandled rejection or uncaught exception behind', async () => {
    // Closed at once, mid-run, and with deliveries outliving the queue's 5 s stop grace.
    for (const [delayMs, hangMs] of [
      [0, 300],
      [150, 300],
      [600, 1500],
      [400, 7000],
    ] as const)
      await closeWhileBusy(delayMs, hangMs);
    // What the closed apps left behind (a retry timer, a delivery that outlived the grace) runs out here.
    await sleep(10_000);
    expect(escaped.map(described)).toEqual([]);
  });
});
