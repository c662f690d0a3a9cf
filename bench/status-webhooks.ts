import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { send } from './load.js';
import { management, type ApiContext } from './seed-api.js';
import { WEBHOOK_EVENT_TYPES } from '../src/schemas/webhook-endpoints.js';

/**
 * `--status-webhooks` (issue #30 point 4): a delivery-status webhook endpoint (docs/webhooks.md) subscribed to every
 * event type, pointing at a receiver the harness starts, so the engine scenarios measure Herald with the outbox, its
 * relay and one signed POST per event. The receiver counts what arrives; a scenario reports the events received
 * against its messages (each message of these scenarios reaches one reported status: `message.delivered` in the
 * inbox, `message.sent` through the webhook provider, `message.refused` for the object itself, which has no
 * channel), so an event lost shows as a message without one.
 */

/** What the receiver has seen so far. */
export interface EventCounts {
  /** POSTs answered (retries of one event included). */
  posts: number;
  /** Distinct `webhook-id`s: the events. */
  events: number;
  /** Distinct messages an event was about. */
  messages: number;
  /** POSTs of a `webhook-id` already received. */
  duplicates: number;
  byType: Record<string, number>;
}

export type EventReceiver = Awaited<ReturnType<typeof startEventReceiver>>;

/** An HTTP receiver answering 204 to every POST, counting events by `webhook-id` and by the message they name. */
export async function startEventReceiver() {
  const ids = new Set<string>();
  const messages = new Set<string>();
  const byType: Record<string, number> = {};
  let posts = 0;
  let duplicates = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      posts += 1;
      const id = String(request.headers['webhook-id'] ?? '');
      if (ids.has(id)) duplicates += 1;
      else {
        ids.add(id);
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
            type?: string;
            data?: { message_id?: string };
          };
          byType[event.type ?? '?'] = (byType[event.type ?? '?'] ?? 0) + 1;
          if (event.data?.message_id) messages.add(event.data.message_id);
        } catch {
          byType['unparsed'] = (byType['unparsed'] ?? 0) + 1;
        }
      }
      response.writeHead(204);
      response.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/herald-events`,
    counts: (): EventCounts => ({
      posts,
      events: ids.size,
      messages: messages.size,
      duplicates,
      byType: { ...byType },
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The endpoint, through the management API: every event type, active. Answers what went wrong, if anything. */
export async function addStatusWebhookEndpoint(api: ApiContext, url: string): Promise<string | undefined> {
  const result = await send(
    api.url,
    management(api, 'POST', '/webhook_endpoint/', {
      url,
      events: [...WEBHOOK_EVENT_TYPES],
      description: 'bench receiver',
    }),
  );
  return result.status === 201
    ? undefined
    : `webhook endpoint: ${result.status} ${JSON.stringify(result.body).slice(0, 300)}`;
}

/**
 * Waits until the receiver has events about `messages` more messages than `before` (bounded); answers the seconds it
 * waited, or undefined when the bound passed first. With `quiet`, it then also waits until nothing arrived for that
 * many ms (a load generator's count of requests may be short of what it sent).
 */
export async function eventsSettled(
  receiver: EventReceiver,
  before: EventCounts,
  messages: number,
  boundSeconds = 60,
  quiet = 0,
) {
  const started = Date.now();
  let reached = false;
  let seen = -1;
  let lastChange = Date.now();
  while (Date.now() - started < boundSeconds * 1000) {
    const now = receiver.counts();
    if (now.posts !== seen) {
      seen = now.posts;
      lastChange = Date.now();
    }
    reached ||= now.messages - before.messages >= messages;
    if (reached && Date.now() - lastChange >= quiet) return (Date.now() - started) / 1000;
    await sleep(100);
  }
  return undefined;
}

/** What arrived since `before`, against the messages written meanwhile: the note a scenario prints. */
export function eventsNote(receiver: EventReceiver, before: EventCounts, messages: number) {
  const now = receiver.counts();
  const about = now.messages - before.messages;
  const types = Object.entries(now.byType)
    .map(([type, n]) => [type, n - (before.byType[type] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .map(([type, n]) => `${type} ${n.toLocaleString('en-US')}`)
    .join(', ');
  return [
    `status webhooks: ${(now.events - before.events).toLocaleString('en-US')} events (${types || 'none'})`,
    `about ${about.toLocaleString('en-US')} of ${messages.toLocaleString('en-US')} messages`,
    `${Math.max(0, messages - about).toLocaleString('en-US')} lost`,
    `${now.duplicates - before.duplicates} sent again`,
  ].join(', ');
}
