import http from 'node:http';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../src/channels/outbound.js';
import type { Queue } from '../../src/engine/queue.js';
import {
  prepareWebhookAttempts,
  RELAY_GATHER_MS,
  relayWebhookEvents,
  startWebhookRelay,
  WEBHOOK_JOB_EVENTS,
  type WebhookJob,
} from '../../src/engine/status-webhooks.js';
import { useTestApp, type TestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { closedPort, HttpPeer, type RecordedRequest } from '../support/http-peer.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { configClient } from '../support/config.js';
import { liveTemplate } from '../support/templates.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';

/**
 * Delivery-status webhooks out (docs/webhooks.md): each status change and engagement mark of a message is posted to
 * the workspace's endpoints that take its event, signed as Standard Webhooks (checked here with the
 * `standardwebhooks` package a receiver would use), at least once, with the same `webhook-id` on every attempt.
 */

const ALL_EVENTS = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.refused',
  'message.seen',
  'message.read',
  'message.clicked',
  'message.dismissed',
];
const VENDOR_SECRET = 'vendor-signing-secret-5b7e';

async function addEndpoint(t: () => TestApp, ws: WorkspaceFixture, url: string, events = ALL_EVENTS) {
  const response = await configClient(t, ws).inject('POST', '/webhook_endpoint/', { url, events });
  if (response.statusCode !== 201) throw new Error(`endpoint not created: ${response.body}`);
  return response.json() as { id: string; secret: string };
}

/** The request verified with the endpoint's secret, as a receiver would: its parsed body (throws when forged). */
const verified = (secret: string, request: RecordedRequest) =>
  new Webhook(secret).verify(request.text, request.headers) as {
    type: string;
    timestamp: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the message JSON, read freely by assertions
    data: Record<string, any>;
  };

const deliveriesOf = (t: () => TestApp, endpointId: string) =>
  t()
    .db.selectFrom('webhook_deliveries')
    .selectAll()
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at')
    .execute();

describe('delivery-status webhooks', () => {
  const allowed = '127.0.0.1';
  const t = useTestApp(
    { OUTBOUND_ALLOWED_HOSTS: allowed },
    // The vendor's calls get their whole timeout: a retried call would reach the vendor's receiver twice.
    {
      engine: {
        renderer: 'templates',
        engine: { outbound: outboundPolicy({ allowedHosts: allowed }), deliveryTimeoutMs: 10_000 },
      },
      privateDatabase: true,
    },
  );
  let peer: HttpPeer;
  let only: HttpPeer;
  let vendorReceiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    peer = await HttpPeer.start();
    only = await HttpPeer.start();
    vendorReceiver = await startWebhookReceiver(VENDOR_SECRET);
  });
  beforeEach(() => {
    peer.reset();
    only.reset();
  });
  afterAll(async () => {
    await peer.close();
    await only.close();
    await vendorReceiver.close();
  });

  it('posts every event type, signed, with the message as GET /v1/message/{id}/ shows it', async () => {
    const ws = await engineWorkspace(t);
    const endpoint = await addEndpoint(t, ws, `${peer.url}/all`);
    const failedOnly = await addEndpoint(t, ws, `${only.url}/failed`, ['message.failed']);
    const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'webhook',
      is_default: true,
      config: { url: vendorReceiver.url, secret: VENDOR_SECRET },
    });
    expect(vendor.statusCode).toBe(201);
    await liveTemplate(t, ws, 'note', ['inbox', 'email']);
    await liveWorkflow(t, ws, 'notify', [inbox('note'), node('send_email', { template: 'note' })]);
    vendorReceiver.plan('bob', [{ status: 400 }]);
    const call = baseCall(t, ws);
    for (const id of ['ann', 'bob']) await call('POST', `/v1/user/${id}/`, { $email: [`${id}@example.com`] });
    const execution = (await trigger(t, ws, { workflow: 'notify', recipients: ['ann', 'bob', 'cat'] })).json()
      .message_id as string;
    const settled = await settledMessages(t, ws, execution, 6);
    const message = (channel: string, who: string) =>
      settled.find((m) => m.channel === channel && m.recipient.distinct_id === who)!;
    const annInbox = message('inbox', 'ann');
    expect(message('email', 'ann').status).toBe('sent_by_vendor');
    expect(message('email', 'bob').status).toBe('delivery_failure');
    expect(message('email', 'cat').status).toBe('not_to_be_triggered');
    for (const action of ['seen', 'read', 'clicked', 'dismissed']) {
      const marked = await call('PATCH', '/v1/bulk/message/', {
        messages: [{ message_id: annInbox.message_id, action }],
      });
      expect(marked.json().records[0].status_code).toBe(202);
    }

    const expected = [
      ['message.delivered', annInbox.message_id],
      ['message.delivered', message('inbox', 'bob').message_id],
      ['message.delivered', message('inbox', 'cat').message_id],
      ['message.sent', message('email', 'ann').message_id],
      ['message.failed', message('email', 'bob').message_id],
      ['message.refused', message('email', 'cat').message_id],
      ['message.seen', annInbox.message_id],
      ['message.read', annInbox.message_id],
      ['message.clicked', annInbox.message_id],
      ['message.dismissed', annInbox.message_id],
    ];
    const posted = () => peer.requests.filter((r) => r.path === '/all');
    await waitFor(async () => posted().length >= expected.length, 20_000, 'every event at the endpoint');
    const events = posted().map((request) => ({ request, body: verified(endpoint.secret, request) }));
    expect(events.map((e) => [e.body.type, e.body.data.message_id]).sort()).toEqual(expected.sort());
    const ids = events.map((e) => e.request.headers['webhook-id']);
    expect(new Set(ids).size).toBe(expected.length);
    for (const { request, body } of events) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/all');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(Date.parse(body.timestamp)).not.toBeNaN();
    }
    // A forged body does not verify.
    const first = events[0]!.request;
    expect(() => new Webhook(endpoint.secret).verify(`${first.text} `, first.headers)).toThrow();
    // `data` is the message as the API shows it (the email messages have not changed since).
    for (const who of ['ann', 'bob', 'cat']) {
      const shown = (await call('GET', `/v1/message/${message('email', who).message_id}/`)).json();
      const posted = events.find((e) => e.body.data.message_id === shown.message_id)!.body;
      expect(posted.data).toEqual(shown);
    }
    expect(events.find((e) => e.body.type === 'message.refused')!.body.data.reason).toBe('no_channel');
    expect(events.find((e) => e.body.type === 'message.failed')!.body.data.reason).toBe('provider_refused');

    // The endpoint that takes only failures got only the one failure.
    await waitFor(async () => only.requests.length >= 1, 10_000, 'the failure at the second endpoint');
    expect(only.requests.map((r) => verified(failedOnly.secret, r).type)).toEqual(['message.failed']);
    // Each attempt is recorded after its answer came back.
    const rows = await waitFor(
      async () => {
        const all = await deliveriesOf(t, endpoint.id);
        return all.every((r) => r.status !== 'pending') ? all : undefined;
      },
      10_000,
      'every attempt recorded',
    );
    expect(rows.map((r) => [r.status, r.attempts])).toEqual(rows.map(() => ['delivered', 1]));
  });

  it('retries after a receiver 500 with the same webhook-id and the same body', async () => {
    const ws = await engineWorkspace(t);
    const endpoint = await addEndpoint(t, ws, `${peer.url}/flaky`, ['message.delivered']);
    let flaky = 0;
    peer.answerAlways((request) =>
      request.path === '/flaky' && flaky++ === 0 ? { status: 500, body: { error: 'busy' } } : { status: 200 },
    );
    await liveTemplate(t, ws, 'note', ['inbox']);
    await liveWorkflow(t, ws, 'notify', [inbox('note')]);
    await trigger(t, ws, { workflow: 'notify', recipients: ['dan'] });
    const [row] = await waitFor(
      async () => {
        const rows = await deliveriesOf(t, endpoint.id);
        return rows[0]?.status === 'delivered' ? rows : undefined;
      },
      20_000,
      'the event delivered',
    );
    expect(row!.attempts).toBe(2);
    const requests = peer.requests.filter((r) => r.path === '/flaky');
    expect(requests).toHaveLength(2);
    const [one, two] = requests as [RecordedRequest, RecordedRequest];
    expect(two.headers['webhook-id']).toBe(one.headers['webhook-id']);
    expect(one.headers['webhook-id']).toBe(row!.id);
    expect(two.text).toBe(one.text);
    expect(verified(endpoint.secret, one).type).toBe('message.delivered');
    expect(verified(endpoint.secret, two).type).toBe('message.delivered');
  });

  it('keeps trying a receiver that is down, and delivers once it is up', async () => {
    const ws = await engineWorkspace(t);
    const port = await closedPort();
    const endpoint = await addEndpoint(t, ws, `http://127.0.0.1:${port}/later`, ['message.delivered']);
    await liveTemplate(t, ws, 'note', ['inbox']);
    await liveWorkflow(t, ws, 'notify', [inbox('note')]);
    await trigger(t, ws, { workflow: 'notify', recipients: ['eve'] });
    const down = await waitFor(
      async () => (await deliveriesOf(t, endpoint.id)).find((r) => r.attempts >= 1),
      20_000,
      'a failed first attempt',
    );
    expect(down.status).toBe('pending');
    expect(JSON.stringify(down.last_error)).toContain('ECONNREFUSED');
    const received: { id: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
    const server = http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        received.push({ id: String(request.headers['webhook-id']), body, headers: request.headers });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const up = await waitFor(
        async () => (await deliveriesOf(t, endpoint.id)).find((r) => r.status === 'delivered'),
        30_000,
        'the event delivered once the receiver is up',
      );
      expect(up.id).toBe(down.id);
      expect(received.map((r) => r.id)).toEqual([down.id]);
      const headers = Object.fromEntries(Object.entries(received[0]!.headers).map(([k, v]) => [k, String(v)]));
      expect(new Webhook(endpoint.secret).verify(received[0]!.body, headers)).toMatchObject({
        type: 'message.delivered',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('posts an event within a second of its status change, woken by NOTIFY: no worker reads the outbox meanwhile', async () => {
    const ws = await engineWorkspace(t);
    const endpoint = await addEndpoint(t, ws, `${peer.url}/soon`, ['message.delivered', 'message.seen']);
    await liveTemplate(t, ws, 'note', ['inbox']);
    await liveWorkflow(t, ws, 'notify', [inbox('note')]);
    const execution = (await trigger(t, ws, { workflow: 'notify', recipients: ['fay'] })).json().message_id as string;
    const [message] = await settledMessages(t, ws, execution, 1);
    // The delivered event posted and its attempt recorded: nothing of it is left to run.
    await waitFor(
      async () => (await deliveriesOf(t, endpoint.id)).some((r) => r.status === 'delivered'),
      20_000,
      'the delivered event',
    );
    // Idle, the relay reads nothing (it looked every 0.5 s before; now every 30 s unasked).
    t().queries.reset();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(t().queries.sql.filter((statement) => statement.includes('webhook_deliveries'))).toEqual([]);
    const marked = Date.now();
    const seen = await baseCall(t, ws)('PATCH', '/v1/bulk/message/', {
      messages: [{ message_id: message!.message_id, action: 'seen' }],
    });
    expect(seen.json().records[0].status_code).toBe(202);
    const posted = await waitFor(
      async () => peer.requests.find((r) => r.path === '/soon' && verified(endpoint.secret, r).type === 'message.seen'),
      10_000,
      'the seen event',
    );
    expect(posted.at - marked).toBeLessThan(1000);
  });

  it('still delivers after the relay’s LISTEN connection is killed (PostgreSQL)', async (context) => {
    if (t().databaseKind !== 'postgres') return context.skip();
    const ws = await engineWorkspace(t);
    await addEndpoint(t, ws, `${peer.url}/after-kill`, ['message.delivered']);
    await liveTemplate(t, ws, 'note', ['inbox']);
    await liveWorkflow(t, ws, 'notify', [inbox('note')]);
    const listeners = () =>
      sql<{ pid: number }>`select pid from pg_stat_activity
        where application_name = 'herald-listen-herald_webhooks' and datname = current_database()`.execute(t().db);
    const { rows } = await listeners();
    expect(rows.length).toBeGreaterThan(0);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity
      where application_name = 'herald-listen-herald_webhooks' and datname = current_database()`.execute(t().db);
    await trigger(t, ws, { workflow: 'notify', recipients: ['gus'] });
    // Heard on the new connection, or found by the pass at reconnection; at worst by the 30 s look.
    await waitFor(async () => peer.requests.some((r) => r.path === '/after-kill'), 40_000, 'the event after the kill');
    const again = await listeners();
    expect(again.rows.length).toBeGreaterThan(0);
    expect(again.rows.map((r) => r.pid)).not.toEqual(expect.arrayContaining(rows.map((r) => r.pid)));
  });

  it('writes an event only with the status change that commits, and none for an inactive endpoint', async () => {
    const ws = await engineWorkspace(t);
    const endpoint = await addEndpoint(t, ws, `${peer.url}/tx`, ['message.read', 'message.seen']);
    const idle = await addEndpoint(t, ws, `${peer.url}/idle`, ['message.read']);
    await configClient(t, ws).inject('PATCH', `/webhook_endpoint/${idle.id}/`, { is_active: false });
    await liveTemplate(t, ws, 'note', ['inbox']);
    await liveWorkflow(t, ws, 'notify', [inbox('note')]);
    const execution = (await trigger(t, ws, { workflow: 'notify', recipients: ['fay'] })).json().message_id as string;
    const [message] = await settledMessages(t, ws, execution, 1);
    const read = (trx: Parameters<Parameters<ReturnType<TestApp['db']['transaction']>['execute']>[0]>[0]) =>
      sql`update messages set status = 'read', seen_at = now(), read_at = now() where id = ${message!.message_id}`.execute(
        trx,
      );
    await expect(
      t()
        .db.transaction()
        .execute(async (trx) => {
          await read(trx);
          throw new Error('rolled back');
        }),
    ).rejects.toThrow('rolled back');
    expect(await deliveriesOf(t, endpoint.id)).toEqual([]);
    await t()
      .db.transaction()
      .execute((trx) => read(trx));
    expect((await deliveriesOf(t, endpoint.id)).map((r) => r.type).sort()).toEqual(['message.read', 'message.seen']);
    expect(await deliveriesOf(t, idle.id)).toEqual([]);
  });
});

describe('delivery-status webhooks and the outbound guard', () => {
  const t = useTestApp({}, { engine: { renderer: 'templates' }, privateDatabase: true });
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  afterAll(() => peer.close());

  it('never calls a host name that resolves to a private address: the refusal is on the event', async () => {
    const ws = await engineWorkspace(t);
    const endpoint = await addEndpoint(t, ws, `http://localhost:${new URL(peer.url).port}/in`, ['message.delivered']);
    await liveTemplate(t, ws, 'note', ['inbox']);
    await liveWorkflow(t, ws, 'notify', [inbox('note')]);
    await trigger(t, ws, { workflow: 'notify', recipients: ['gus'] });
    const row = await waitFor(
      async () => (await deliveriesOf(t, endpoint.id)).find((r) => r.attempts >= 1),
      20_000,
      'the first attempt',
    );
    expect(JSON.stringify(row.last_error)).toContain('destination refused');
    expect(row.status).toBe('pending');
    expect(peer.requests).toHaveLength(0);
  });
});

/**
 * A test app of its own (its worker is stopped for good by `eventsWaiting`) and a receiver: `eventsWaiting(names,
 * path)` settles a trigger's inbox messages for `names`, stops the worker, adds an endpoint at `path` for
 * `message.read` and marks the messages read: their events wait in the outbox for what the test does with them.
 */
function withoutWorker() {
  const allowed = '127.0.0.1';
  const t = useTestApp(
    { OUTBOUND_ALLOWED_HOSTS: allowed },
    { engine: { renderer: 'templates' }, privateDatabase: true },
  );
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  afterAll(() => peer.close());
  const eventsWaiting = async (recipients: string[], path: string) => {
    const ws = await engineWorkspace(t);
    await liveTemplate(t, ws, 'note', ['inbox']);
    await liveWorkflow(t, ws, 'notify', [inbox('note')]);
    const execution = (await trigger(t, ws, { workflow: 'notify', recipients })).json().message_id as string;
    await settledMessages(t, ws, execution, recipients.length);
    const runtime = t().engineRuntime!;
    await runtime.stop();
    const endpoint = await addEndpoint(t, ws, `${peer.url}${path}`, ['message.read']);
    await sql`update messages set status = 'read', read_at = now() where execution_id = ${execution}`.execute(t().db);
    const deps = {
      db: t().db,
      queue: runtime.queue,
      secretBox: t().secretBox,
      outbound: outboundPolicy({ allowedHosts: allowed }),
      now: Date.now,
    };
    return { endpoint, events: await deliveriesOf(t, endpoint.id), deps };
  };
  return { t, peer: () => peer, eventsWaiting };
}

describe('a fetched batch of delivery-status webhook attempts', () => {
  const { t, peer: receiver, eventsWaiting } = withoutWorker();

  it('reads, fixes the bodies of and records 1 event in the same statements as 7, the bodies before any POST', async () => {
    const recipients = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((name) => `batch-${name}`);
    const peer = receiver();
    const { endpoint, events, deps } = await eventsWaiting(recipients, '/batch');
    expect(events).toHaveLength(recipients.length);
    const statements: { before: number; after: number }[] = [];
    for (const batch of [events.slice(0, 1), events.slice(1)]) {
      t().queries.reset();
      const attempt = await prepareWebhookAttempts(
        deps,
        batch.map((event) => ({ deliveryId: event.id, attempt: 1 })),
      );
      const before = t().queries.count;
      expect(peer.requests).toHaveLength(events.indexOf(batch[0]!));
      t().queries.reset();
      await Promise.all(
        batch.map((event) => attempt({ deliveryId: event.id, attempt: 1 }, AbortSignal.timeout(10_000))),
      );
      statements.push({ before, after: t().queries.count });
    }
    // Before the POSTs: the events with their endpoints, their messages, the bodies fixed; after: one record.
    expect(statements).toEqual([
      { before: 3, after: 1 },
      { before: 3, after: 1 },
    ]);
    const delivered = await deliveriesOf(t, endpoint.id);
    expect(delivered.map((row) => [row.status, row.attempts])).toEqual(events.map(() => ['delivered', 1]));
    expect(peer.requests.map((request) => verified(endpoint.secret, request).data.message_id).sort()).toEqual(
      events.map((event) => event.message_id).sort(),
    );
    // Each POST sent the body its first attempt fixed.
    const stored = new Map(delivered.map((row) => [row.id, row.payload]));
    for (const request of peer.requests) expect(request.text).toBe(stored.get(String(request.headers['webhook-id'])));
  });
});

describe('the relay of delivery-status webhook events', () => {
  const { t, peer: receiver, eventsWaiting } = withoutWorker();

  it('relays 30 events as 2 jobs of first attempts, their bodies fixed; a job of 25 takes 1 statement before its POSTs and 1 after', async () => {
    const peer = receiver();
    const { endpoint, deps } = await eventsWaiting(
      Array.from({ length: 30 }, (_, i) => `relay-${i}`),
      '/relayed',
    );
    // The relay's jobs, as it queues them (in its transaction).
    const sent: { data: WebhookJob }[] = [];
    const queue = {
      sendMany: async (_db: unknown, _name: string, jobs: { data: WebhookJob }[]) => void sent.push(...jobs),
    } as unknown as Queue;
    expect(await relayWebhookEvents(t().db, queue)).toBe(30);
    expect(sent.map((job) => [job.data.attempt, 'deliveryIds' in job.data && job.data.deliveryIds.length])).toEqual([
      [1, WEBHOOK_JOB_EVENTS],
      [1, 30 - WEBHOOK_JOB_EVENTS],
    ]);
    const events = await deliveriesOf(t, endpoint.id);
    expect(events.filter((row) => row.queued_at !== null && row.payload !== null)).toHaveLength(30);
    expect(await relayWebhookEvents(t().db, queue)).toBe(0);
    const job = sent[0]!.data;
    t().queries.reset();
    const attempt = await prepareWebhookAttempts(deps, [job]);
    expect(t().queries.count).toBe(1);
    t().queries.reset();
    await attempt(job, AbortSignal.timeout(10_000));
    expect(t().queries.count).toBe(1);
    const ids = new Set('deliveryIds' in job ? job.deliveryIds : []);
    const after = await deliveriesOf(t, endpoint.id);
    expect(after.filter((row) => row.status === 'delivered').map((row) => row.id)).toEqual(
      after.filter((row) => ids.has(row.id)).map((row) => row.id),
    );
    // Each POST sent the body the relay fixed, signed as the standardwebhooks package verifies it.
    const stored = new Map(after.map((row) => [row.id, row.payload]));
    expect(peer.requests).toHaveLength(WEBHOOK_JOB_EVENTS);
    for (const request of peer.requests) {
      expect(verified(endpoint.secret, request).type).toBe('message.read');
      expect(request.text).toBe(stored.get(String(request.headers['webhook-id'])));
    }
  });

  it('relays a busy outbox at most every RELAY_GATHER_MS', async () => {
    const ws = await engineWorkspace(t);
    const runtime = t().engineRuntime!;
    await runtime.stop();
    const endpoint = await addEndpoint(t, ws, `${receiver().url}/gathered`, ['message.read']);
    // A relay of its own, its passes timed where they queue their jobs.
    const passes: number[] = [];
    const stopping = new AbortController();
    const queue = {
      stopSignal: stopping.signal,
      sendMany: async () => void passes.push(performance.now()),
    } as unknown as Queue;
    await startWebhookRelay({ db: t().db, queue, log: console, listen: runtime.queue.database });
    const event = (i: number) =>
      sql`insert into webhook_deliveries (id, workspace_id, endpoint_id, message_id, type, occurred_at)
        values (${`msg_gathered${i}`}, ${ws.workspaceId}, ${endpoint.id}, ${`gone${i}`}, 'message.read', now())`.execute(
        t().db,
      );
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await event(0);
      await waitFor(async () => passes.length === 1, 5000, 'the first event relayed');
      for (let i = 1; i <= 30; i += 1) {
        await event(i);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await waitFor(
        async () => (await deliveriesOf(t, endpoint.id)).every((row) => row.queued_at !== null && row.payload !== null),
        5000,
        'every event relayed',
      );
    } finally {
      stopping.abort();
    }
    // At least two passes, spaced: their starts are RELAY_GATHER_MS apart or more (a pass queues its jobs a few ms
    // after it starts, so one gap alone may be shorter).
    expect(passes.length).toBeGreaterThan(1);
    expect(passes.length).toBeLessThan(30);
    expect((passes.at(-1)! - passes[0]!) / (passes.length - 1)).toBeGreaterThan(RELAY_GATHER_MS - 5);
  });
});
