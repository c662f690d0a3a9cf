import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { HttpPeer } from '../support/http-peer.js';
import { configClient } from '../management/config-helpers.js';

/**
 * A webhook vendor's extra headers carry credentials (`authorization`, API keys): sealed at rest,
 * masked on every read, sent as they were given (issue 25, point 3).
 */
describe("a webhook vendor's headers", () => {
  const t = useTestApp();
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  afterAll(async () => {
    await peer.close();
  });

  it('are sealed at rest and masked on reads; a PATCH of the read body keeps them; the provider still sends them', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const bearer = `Bearer vendor-${randomUUID()}`;
    const apiKey = `key-${randomUUID()}`;
    const created = await client.inject('POST', '/vendor/', {
      channel: 'sms',
      provider: 'webhook',
      config: {
        url: `${peer.url}/hook`,
        secret: 'whsec-0123456789abcdef',
        headers: { authorization: bearer, 'x-api-key': apiKey, 'x-tenant': 'acme' },
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().id as string;
    expect(created.json().config.headers).toEqual({
      authorization: '********',
      'x-api-key': '********',
      'x-tenant': '********',
    });
    const listed = await client.inject('GET', '/vendor/');
    for (const answer of [created.body, listed.body]) {
      expect(answer).not.toContain(bearer);
      expect(answer).not.toContain(apiKey);
    }
    const stored = await sql<{ row: string }>`select v::text as row from vendors v where id = ${id}`.execute(t().db);
    expect(stored.rows[0]!.row).not.toContain(bearer);
    expect(stored.rows[0]!.row).not.toContain(apiKey);
    expect(stored.rows[0]!.row).toContain('x-api-key');

    // The read body sent back: masked values keep what is stored; a new value replaces its header.
    const patched = await client.inject('PATCH', `/vendor/${id}/`, {
      config: {
        ...listed.json().results.find((v: { id: string }) => v.id === id).config,
        headers: {
          authorization: '********',
          'x-api-key': '********',
          'x-tenant': 'globex',
        },
      },
    });
    expect(patched.statusCode, patched.body).toBe(200);

    // Positive control: the provider sends the headers as they were given.
    const tested = await client.inject('POST', `/vendor/${id}/test/`, {});
    expect(tested.json()).toMatchObject({ ok: true });
    const request = peer.last;
    expect(request.headers.authorization).toBe(bearer);
    expect(request.headers['x-api-key']).toBe(apiKey);
    expect(request.headers['x-tenant']).toBe('globex');
  });

  it('take timeout_ms as every vendor does (docs/channels.md), within its bounds', async () => {
    const ws = await createWorkspaceFixture(t());
    const client = configClient(t, ws);
    const vendor = (timeout_ms: number) => ({
      channel: 'sms',
      provider: 'webhook',
      config: { url: `${peer.url}/hook`, secret: 'whsec-0123456789abcdef', timeout_ms },
    });
    const accepted = await client.inject('POST', '/vendor/', vendor(5000));
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(accepted.json().config.timeout_ms).toBe(5000);
    const refused = await client.inject('POST', '/vendor/', vendor(10));
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/^config\.timeout_ms /);
  });
});
