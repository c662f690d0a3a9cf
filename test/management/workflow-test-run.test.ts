import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/app.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { countAllRows, watchRowChanges } from '../support/row-changes.js';
import { assertNoCredentialsInLogs } from '../support/secrets.js';
import { HttpPeer } from '../support/http-peer.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { configClient } from '../support/config.js';
import { baseCall, engineWorkspace, node } from '../support/engine-drivers.js';
import type { WorkspaceFixture } from '../support/fixtures.js';

/**
 * The workflow test run (docs/runs.md, docs/spec/product.md §3): the draft walked for one recipient
 * through the real decision, vendor choice and rendering, and nothing written, sent or queued: every
 * table of every schema (the queue's included) has the rows it had, no committed change moved the
 * row-change counter, and the local SMTP server and HTTP receiver heard nothing.
 */
describe('the workflow test run', () => {
  let database: PrivateDatabase;
  let testApp: TestApp;
  let sink: SmtpSink;
  let peer: HttpPeer;
  let ws: WorkspaceFixture;
  const t = () => testApp;

  beforeAll(async () => {
    database = await createPrivateDatabase();
    sink = await SmtpSink.start({ username: 'herald', password: 'smtp-password-5f1e' });
    peer = await HttpPeer.start();
    // The HTTP node's receiver is allowed: were the test run to call it, the receiver would hear it.
    testApp = await buildTestApp(
      { ...(database.url ? { DATABASE_URL: database.url } : {}), OUTBOUND_ALLOWED_HOSTS: 'localhost' },
      { engine: { worker: false } },
    );
    ws = await engineWorkspace(t);
    const management = configClient(t, ws);
    const created = await management.inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'smtp',
      nickname: 'Local SMTP',
      config: {
        host: '127.0.0.1',
        port: sink.port,
        secure: false,
        username: 'herald',
        password: 'smtp-password-5f1e',
        from_email: 'notifications@example.com',
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const v2 = (method: 'POST' | 'PATCH', path: string, body: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}${path}`,
        headers: ws.management,
        payload: body as object,
      });
    for (const [slug, channel, content] of [
      ['shipped-mail', 'email', { subject: 'Order {{order.id}} shipped', html: '<p>Hi {{$recipient.name}}</p>' }],
      ['shipped-inbox', 'inbox', { header: 'Order {{order.id}}', text: 'On its way, {{$recipient.name}}' }],
    ] as const) {
      expect((await v2('POST', `/template/${slug}/`, { name: slug, enabled_channels: [channel] })).statusCode).toBe(
        200,
      );
      const variant = await v2('POST', `/template/${slug}/channel/${channel}/variant/default/`, {
        locale: 'en',
        content,
      });
      expect(variant.statusCode, variant.body).toBe(200);
      expect((await v2('PATCH', `/template/${slug}/commit/`, {})).statusCode).toBeLessThan(300);
    }
    await baseCall(t, ws)('POST', '/v1/user/tara/', { name: 'Tara', $email: ['tara@example.com'] });
    await baseCall(t, ws)('POST', '/v1/user/noemail/', { name: 'Nomail' });
    // A draft only: never committed, so there is no live version to walk.
    const saved = await management.postWorkflow('ship', {
      name: 'Ship',
      category: 'order-updates',
      trigger_type: 'api',
      tree: {
        nodes: [
          node('delay', { duration: '1h' }),
          node('send_email', { template: 'shipped-mail' }),
          node('httpapi_webhook', { url: `http://localhost:${new URL(peer.url).port}/hook` }),
          node('send_inbox', { template: 'shipped-inbox' }),
        ],
      },
    });
    expect(saved.statusCode, saved.body).toBeLessThan(300);
  });
  afterAll(async () => {
    await testApp?.close();
    if (testApp) assertNoCredentialsInLogs(testApp.logs);
    await sink?.close();
    await peer?.close();
    await database?.drop();
  });

  const testRun = (body: unknown, slug = 'ship') =>
    t().app.inject({
      method: 'POST',
      url: `/management/v1/${ws.slug}/workflow/${slug}/test_run/`,
      headers: ws.management,
      payload: body as object,
    });

  it('walks the draft: the wait reported, each delivery decided, its vendor and content; nothing written, sent or queued', async () => {
    const changes = await watchRowChanges(t().db);
    const rowsBefore = await countAllRows(t().db);
    const changesBefore = await changes();
    const before = Date.now();

    const response = await testRun({ mode: 'draft', recipient: 'tara', data: { order: { id: 'A-7' } } });
    expect(response.statusCode, response.body).toBe(200);
    const result = response.json();
    expect(result).toMatchObject({
      mode: 'draft',
      workflow: { slug: 'ship', version_id: null },
      recipient: { distinct_id: 'tara' },
      tenant_id: 'default',
      status: 'completed',
    });
    const steps = result.steps as { node_type: string; outcome: string; detail: Record<string, unknown> }[];
    expect(steps.map((s) => [s.node_type, s.outcome])).toEqual([
      ['delay', 'waiting_until'],
      ['send_email', 'delivered_messages'],
      ['httpapi_webhook', 'skipped'],
      ['send_inbox', 'delivered_messages'],
    ]);
    // The wait is reported with when it would end, and not waited.
    const until = Date.parse(steps[0]!.detail.until as string);
    expect(until).toBeGreaterThanOrEqual(before + 3600_000);
    expect(until).toBeLessThan(Date.now() + 3600_000 + 1000);
    expect(steps[1]).toMatchObject({
      deliveries: [
        {
          channel: 'email',
          channel_identity: 'tara@example.com',
          decision: { send: true, reason: null },
          vendor: { provider: 'smtp', nickname: 'Local SMTP' },
          content: { subject: 'Order A-7 shipped' },
          error: null,
        },
      ],
    });
    expect(JSON.stringify(steps[1])).toContain('Hi Tara');
    expect(steps[2]!.detail).toEqual({ reason: 'a test run makes no outside calls' });
    expect(steps[3]).toMatchObject({
      deliveries: [
        {
          channel: 'inbox',
          decision: { send: true },
          vendor: null,
          content: { header: 'Order A-7', text: 'On its way, Tara' },
        },
      ],
    });
    expect(result.jobs_not_queued).toBeGreaterThan(0);

    // A recipient without an email: the decision's refusal, with its reason; an inline user is used as given.
    const refused = (await testRun({ recipient: 'noemail', data: { order: { id: 'B' } } })).json();
    expect(refused.steps[1].deliveries[0]).toMatchObject({
      channel: 'email',
      decision: { send: false, reason: 'no_channel' },
      vendor: null,
      content: null,
    });
    const inline = await testRun({
      recipient: { distinct_id: 'newcomer', name: 'Nell', $email: ['nell@example.com'] },
    });
    expect(inline.statusCode, inline.body).toBe(200);
    expect(inline.json().steps[1].deliveries[0]).toMatchObject({
      decision: { send: true },
      channel_identity: 'nell@example.com',
      content: { subject: 'Order  shipped' },
    });

    // Nothing written (no committed change, every table's rows as they were, the queue's too), sent or called.
    expect(await changes()).toBe(changesBefore);
    expect(await countAllRows(t().db)).toEqual(rowsBefore);
    const users = await sql<{ n: number }>`select count(*)::int as n from users where distinct_id = 'newcomer'`.execute(
      t().db,
    );
    expect(users.rows[0]!.n).toBe(0);
    expect(sink.mails).toHaveLength(0);
    expect(peer.requests).toHaveLength(0);
  });

  it('answers 404 for a missing workflow, live version, user or tenant, and 400 for a bad recipient', async () => {
    expect((await testRun({ recipient: 'tara' }, 'nowhere')).statusCode).toBe(404);
    const live = await testRun({ mode: 'live', recipient: 'tara' });
    expect(live.statusCode).toBe(404);
    expect(live.json().message).toContain('ship');
    expect((await testRun({ recipient: 'nobody' })).statusCode).toBe(404);
    expect((await testRun({ recipient: 'tara', tenant_id: 'acme' })).statusCode).toBe(404);
    expect((await testRun({ recipient: { object_type: 'team', id: 'x' } })).statusCode).toBe(400);
    expect((await testRun({})).statusCode).toBe(400);
    expect((await testRun({ recipient: 'tara', mode: 'sideways' })).statusCode).toBe(400);
  });
});
