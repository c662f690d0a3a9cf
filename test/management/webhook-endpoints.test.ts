import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';

const URL_OK = 'https://hooks.example.com/herald';
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

describe('/management/v1/{workspace}/webhook_endpoint/: delivery-status webhook endpoints', () => {
  const t = useTestApp();
  let ws: WorkspaceFixture;
  let other: WorkspaceFixture;
  beforeAll(async () => {
    ws = await createWorkspaceFixture(t());
    other = await createWorkspaceFixture(t());
  });
  const client = () => configClient(t, ws);

  it('creates, reads, lists, changes and deletes an endpoint; the secret is in the create answer only', async () => {
    const created = await client().inject('POST', '/webhook_endpoint/', {
      url: URL_OK,
      events: ['message.delivered', 'message.failed'],
      description: 'ops dashboard',
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({
      url: URL_OK,
      events: ['message.delivered', 'message.failed'],
      is_active: true,
      description: 'ops dashboard',
    });
    expect(body.id).toMatch(/^whep_[0-9A-Z]{26}$/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The secret is one a Standard Webhooks library takes as is.
    expect(() => new Webhook(body.secret).sign('msg_1', new Date(), '{}')).not.toThrow();

    const one = await client().inject('GET', `/webhook_endpoint/${body.id}/`);
    expect(one.statusCode).toBe(200);
    const { secret, ...shown } = body;
    expect(one.json()).toEqual(shown);
    expect(one.body).not.toContain(secret.slice(6));
    const list = await client().inject('GET', '/webhook_endpoint/');
    expect(list.json()).toEqual({ meta: { count: 1, limit: 20, offset: 0 }, results: [shown] });

    const patched = await client().inject('PATCH', `/webhook_endpoint/${body.id}/`, {
      events: ALL_EVENTS,
      is_active: false,
      description: null,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ url: URL_OK, events: ALL_EVENTS, is_active: false, description: null });
    expect(patched.body).not.toContain('whsec_');

    expect((await client().inject('DELETE', `/webhook_endpoint/${body.id}/`)).statusCode).toBe(204);
    expect((await client().inject('GET', `/webhook_endpoint/${body.id}/`)).statusCode).toBe(404);
    expect((await client().inject('DELETE', `/webhook_endpoint/${body.id}/`)).statusCode).toBe(404);
  });

  it('stores the secret encrypted, and a rotation answers a new one that replaces it', async () => {
    const created = (
      await client().inject('POST', '/webhook_endpoint/', { url: URL_OK, events: ['message.sent'] })
    ).json();
    const stored = await t()
      .db.selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(created.secret.slice(6, 20));
    expect(t().secretBox.decrypt(stored.secret)).toBe(created.secret);

    const rotated = await client().inject('POST', `/webhook_endpoint/${created.id}/rotate_secret/`);
    expect(rotated.statusCode).toBe(200);
    expect(rotated.json().secret).toMatch(/^whsec_/);
    expect(rotated.json().secret).not.toBe(created.secret);
    const after = await t()
      .db.selectFrom('webhook_endpoints')
      .select('secret')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(t().secretBox.decrypt(after.secret)).toBe(rotated.json().secret);
  });

  // Service tokens are the account's (they reach every workspace): the workspace is the path's, and an endpoint
  // is found only under its own workspace's path.
  it("never reaches another workspace's endpoints", async () => {
    const mine = (
      await client().inject('POST', '/webhook_endpoint/', { url: URL_OK, events: ['message.sent'] })
    ).json();
    const theirs = configClient(t, other);
    const as = (method: 'GET' | 'PATCH' | 'DELETE' | 'POST', path: string, body?: unknown) =>
      theirs.inject(method, path, body);
    expect((await as('GET', `/webhook_endpoint/${mine.id}/`)).statusCode).toBe(404);
    expect((await as('PATCH', `/webhook_endpoint/${mine.id}/`, { is_active: false })).statusCode).toBe(404);
    expect((await as('POST', `/webhook_endpoint/${mine.id}/rotate_secret/`)).statusCode).toBe(404);
    expect((await as('DELETE', `/webhook_endpoint/${mine.id}/`)).statusCode).toBe(404);
    expect((await as('GET', '/webhook_endpoint/')).json().results.map((e: { id: string }) => e.id)).not.toContain(
      mine.id,
    );
    const unauthenticated = await t().app.inject({ method: 'GET', url: `/management/v1/${ws.slug}/webhook_endpoint/` });
    expect(unauthenticated.statusCode).toBe(401);
    // Untouched.
    expect((await client().inject('GET', `/webhook_endpoint/${mine.id}/`)).json().is_active).toBe(true);
  });

  it('answers bad input with a 400 in the full error shape, naming the field', async () => {
    const bad = async (body: unknown, field: string) => {
      const response = await client().inject('POST', '/webhook_endpoint/', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ code: 400, error_code: expect.any(String) });
      expect(response.json().message).toContain(field);
    };
    await bad({ events: ['message.sent'] }, 'url');
    await bad({ url: URL_OK }, 'events');
    await bad({ url: URL_OK, events: [] }, 'events');
    await bad({ url: URL_OK, events: ['message.exploded'] }, 'events');
    await bad({ url: URL_OK, events: ['message.sent', 'message.sent'] }, 'events');
    await bad({ url: 'not a url', events: ['message.sent'] }, 'url');
    await bad({ url: 'ftp://hooks.example.com/x', events: ['message.sent'] }, 'url');
    await bad({ url: 'https://user:pw@hooks.example.com/x', events: ['message.sent'] }, 'url');
    await bad({ url: `https://example.com/${'a'.repeat(2100)}`, events: ['message.sent'] }, 'url');
    await bad({ url: URL_OK, events: ['message.sent'], secret: 'mine' }, 'secret');
    await bad({ url: URL_OK, events: ['message.sent'], is_active: 'yes' }, 'is_active');
    const created = (
      await client().inject('POST', '/webhook_endpoint/', { url: URL_OK, events: ['message.sent'] })
    ).json();
    expect((await client().inject('PATCH', `/webhook_endpoint/${created.id}/`, {})).statusCode).toBe(400);
    expect((await client().inject('PATCH', `/webhook_endpoint/${created.id}/`, { url: 'gopher://x' })).statusCode).toBe(
      400,
    );
    expect((await client().inject('GET', '/webhook_endpoint/whep_nope/')).statusCode).toBe(404);
    expect((await client().inject('GET', '/webhook_endpoint/?limit=0')).statusCode).toBe(400);
  });

  it('refuses a URL on an address the outbound guard refuses (a private or metadata address)', async () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://169.254.169.254/latest',
      'http://[::1]/x',
      'http://10.0.0.5/',
    ]) {
      const response = await client().inject('POST', '/webhook_endpoint/', { url, events: ['message.sent'] });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().message).toMatch(/^url: destination refused/);
    }
  });
});
