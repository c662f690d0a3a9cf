import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { signedHeaders } from '../support/signing.js';

const FAILURE = { code: 401, message: 'invalid signature or workspace key' };

describe('base authentication (signed workspace key)', () => {
  const t = useTestApp({ SIGNATURE_MAX_SKEW_SECONDS: '120' });

  const send = (
    ws: WorkspaceFixture,
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    body?: string,
    overrides: Partial<Parameters<typeof signedHeaders>[0]> = {},
  ) =>
    t().app.inject({
      method,
      url,
      payload: body,
      headers: signedHeaders({ key: ws.workspaceKey, secret: ws.workspaceSecret, method, url, body, ...overrides }),
    });

  it('accepts a correct signature with an RFC 7231 Date and with an ISO Date', async () => {
    const ws = await createWorkspaceFixture(t());
    const body = JSON.stringify({ name: 'Ada' });
    expect((await send(ws, 'POST', '/v1/user/ada/', body)).statusCode).toBe(201);
    const iso = await send(ws, 'GET', '/v1/user/ada/', undefined, { date: new Date().toISOString() });
    expect(iso.statusCode).toBe(200);
    expect(iso.json().properties).toEqual({ name: 'Ada' });
  });

  it('verifies the exact body bytes, not a re-serialization', async () => {
    const ws = await createWorkspaceFixture(t());
    const body = '{ "name" :  "Zo\\u00eb",\n "n": 1.50 }';
    const response = await send(ws, 'POST', '/v1/user/zoe/', body);
    expect(response.statusCode).toBe(201);
    expect(response.json().properties).toEqual({ name: 'Zoë', n: 1.5 });
  });

  it('verifies the raw path and query, percent-encoding as sent', async () => {
    const ws = await createWorkspaceFixture(t());
    await t().db.insertInto('users').values({ workspace_id: ws.workspaceId, distinct_id: 'a b/c' }).execute();
    expect((await send(ws, 'GET', '/v1/user/a%20b%2Fc/')).statusCode).toBe(200);
    expect((await send(ws, 'GET', '/v1/user/?limit=5&after=')).statusCode).toBe(400);
    expect((await send(ws, 'GET', '/v1/user/?limit=5')).statusCode).toBe(200);
    // Signed for one URL, sent to another: the query is covered too.
    const headers = signedHeaders({
      key: ws.workspaceKey,
      secret: ws.workspaceSecret,
      method: 'GET',
      url: '/v1/user/?limit=5',
    });
    expect((await t().app.inject({ method: 'GET', url: '/v1/user/?limit=6', headers })).json()).toEqual(FAILURE);
  });

  it('treats a bare ? as no query, as the SDKs sign it', async () => {
    const ws = await createWorkspaceFixture(t());
    const headers = signedHeaders({
      key: ws.workspaceKey,
      secret: ws.workspaceSecret,
      method: 'GET',
      url: '/v1/user/',
    });
    // Over a real socket: the request target arrives exactly as written, `?` included.
    if (!t().app.server.listening) await t().app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t().app.server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/v1/user/?', headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('answers every kind of failure with the same 401', async () => {
    const ws = await createWorkspaceFixture(t());
    const other = await createWorkspaceFixture(t());
    const body = JSON.stringify({ name: 'x' });
    const url = '/v1/user/x/';
    const old = new Date(Date.now() - 121_000).toUTCString();
    const future = new Date(Date.now() + 121_000).toISOString();
    const cases: [string, Record<string, string>, string?][] = [
      [
        'wrong secret',
        signedHeaders({ key: ws.workspaceKey, secret: other.workspaceSecret, method: 'POST', url, body }),
      ],
      ['unknown key', signedHeaders({ key: 'wsk_nope', secret: ws.workspaceSecret, method: 'POST', url, body })],
      [
        'stale date',
        signedHeaders({ key: ws.workspaceKey, secret: ws.workspaceSecret, method: 'POST', url, body, date: old }),
      ],
      [
        'future date',
        signedHeaders({ key: ws.workspaceKey, secret: ws.workspaceSecret, method: 'POST', url, body, date: future }),
      ],
      [
        'unparseable date',
        signedHeaders({
          key: ws.workspaceKey,
          secret: ws.workspaceSecret,
          method: 'POST',
          url,
          body,
          date: 'yesterday',
        }),
      ],
      ['other method', signedHeaders({ key: ws.workspaceKey, secret: ws.workspaceSecret, method: 'PATCH', url, body })],
      [
        'tampered body',
        signedHeaders({ key: ws.workspaceKey, secret: ws.workspaceSecret, method: 'POST', url, body }),
        JSON.stringify({ name: 'y' }),
      ],
      [
        'other content type',
        {
          ...signedHeaders({
            key: ws.workspaceKey,
            secret: ws.workspaceSecret,
            method: 'POST',
            url,
            body,
            contentType: 'application/json',
          }),
          'content-type': 'application/json; charset=utf-8',
        },
      ],
    ];
    for (const [name, headers, payload] of cases) {
      const response = await t().app.inject({ method: 'POST', url, headers, payload: payload ?? body });
      expect(response.statusCode, name).toBe(401);
      expect(response.json(), name).toEqual(FAILURE);
    }
    const missingDate = signedHeaders({
      key: ws.workspaceKey,
      secret: ws.workspaceSecret,
      method: 'POST',
      url,
      body,
      date: '',
    });
    delete missingDate.date;
    expect((await t().app.inject({ method: 'POST', url, headers: missingDate, payload: body })).json()).toEqual(
      FAILURE,
    );
    expect(await t().db.selectFrom('users').select('id').where('workspace_id', '=', ws.workspaceId).execute()).toEqual(
      [],
    );
  });

  it('accepts a Date within the configured skew', async () => {
    const ws = await createWorkspaceFixture(t());
    const date = new Date(Date.now() - 100_000).toUTCString();
    expect((await send(ws, 'GET', '/v1/user/', undefined, { date })).statusCode).toBe(200);
  });

  it('stops a pair paused, deleted or rotated through the management API, on the very next request', async () => {
    const ws = await createWorkspaceFixture(t());
    const management = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t().app.inject({ method, url: `/management/v1/${ws.slug}/ws_key/${url}`, headers: ws.management, payload });
    const created = (await management('POST', '', { name: 'orders-service' })).json();
    const pair = { ...ws, workspaceKey: created.key, workspaceSecret: created.secret };
    expect((await send(pair, 'GET', '/v1/user/')).statusCode).toBe(200);

    expect((await management('PATCH', `${created.id}/`, { is_active: false })).statusCode).toBe(200);
    expect((await send(pair, 'GET', '/v1/user/')).json()).toEqual(FAILURE);
    expect((await management('PATCH', `${created.id}/`, { is_active: true })).statusCode).toBe(200);
    expect((await send(pair, 'GET', '/v1/user/')).statusCode).toBe(200);

    const rotated = (await management('POST', `${created.id}/rotate/`)).json();
    expect((await send(pair, 'GET', '/v1/user/')).json()).toEqual(FAILURE);
    const rotatedPair = { ...pair, workspaceSecret: rotated.secret };
    expect((await send(rotatedPair, 'GET', '/v1/user/')).statusCode).toBe(200);

    expect((await management('DELETE', `${created.id}/`)).statusCode).toBe(204);
    expect((await send(rotatedPair, 'GET', '/v1/user/')).json()).toEqual(FAILURE);
    // The default pair was never touched and still signs.
    expect((await send(ws, 'GET', '/v1/user/')).statusCode).toBe(200);
  });

  it('uses the error shape of the route: full on tenants', async () => {
    const ws = await createWorkspaceFixture(t());
    const headers = signedHeaders({ key: ws.workspaceKey, secret: 'wrong', method: 'GET', url: '/v1/tenant/' });
    const response = await t().app.inject({ method: 'GET', url: '/v1/tenant/', headers });
    expect(response.json()).toEqual({
      ...FAILURE,
      error_code: 'authentication_failed',
      type: 'AuthenticationFailed',
      detail: null,
    });
  });

  it('never logs the signature or the secret', async () => {
    const ws = await createWorkspaceFixture(t());
    const headers = signedHeaders({
      key: ws.workspaceKey,
      secret: ws.workspaceSecret,
      method: 'GET',
      url: '/v1/user/',
    });
    await t().app.inject({ method: 'GET', url: '/v1/user/', headers });
    const logged = JSON.stringify(t().logs);
    expect(logged).not.toContain(headers.authorization!.split(':')[1]);
    expect(logged).not.toContain(ws.workspaceSecret);
  });
});
