import { connect, type AddressInfo } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { censorCredentials } from '../../src/logger.js';
import { buildTestApp, useTestApp } from '../support/app.js';
import { findCredentials } from '../support/secrets.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

describe('logs', () => {
  const t = useTestApp();

  it('are JSON lines carrying the request id: one per request at info, with method, path, status and time', async () => {
    const response = await t().app.inject({
      method: 'GET',
      url: '/healthz?probe=1',
      headers: { 'x-request-id': 'log-trace-1' },
    });
    expect(response.statusCode).toBe(200);
    const lines = t().logs.filter((line) => line.reqId === 'log-trace-1');
    expect(lines.map((line) => line.msg)).toEqual(['request completed']);
    expect(lines[0]).toMatchObject({
      level: 30,
      req: { method: 'GET', url: '/healthz?probe=1' },
      res: { statusCode: 200 },
      responseTime: expect.any(Number),
    });
  });

  it('also log each request as it arrives at debug', async () => {
    const debug = await buildTestApp({ LOG_LEVEL: 'debug' });
    try {
      await debug.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'log-trace-2' } });
      const lines = debug.logs.filter((line) => line.reqId === 'log-trace-2');
      expect(lines.map((line) => line.msg)).toEqual(['incoming request', 'request completed']);
      expect(lines[0]).toMatchObject({ level: 20, req: { method: 'GET', url: '/healthz' } });
      expect(lines[1]).toMatchObject({ level: 30, res: { statusCode: 200 } });
    } finally {
      await debug.close();
    }
  });

  it('never contain credentials, whatever the request carried', async () => {
    const ws = await createWorkspaceFixture(t());
    await t().app.inject({ method: 'GET', url: '/management/v1/workspace/', headers: ws.management });
    await t().app.inject({ method: 'GET', url: '/v1/user/u/', headers: ws.base });
    await t().app.inject({ method: 'GET', url: '/v1/user/u/', headers: { authorization: `Bearer ${ws.apiKey}x` } });
    const created = await t().app.inject({
      method: 'POST',
      url: '/management/v1/workspace/',
      headers: ws.management,
      payload: { name: `logs ${ws.slug}` },
    });
    const pair = created.json().default_workspace_key;
    // Anything logged with a credential-named field is censored.
    t().app.log.info(
      { secret: pair.secret, key: pair.key, nested: { token: ws.serviceToken, api_key: ws.apiKey } },
      'object with secrets',
    );
    t().app.log.info({ req: { headers: { authorization: ws.management.authorization } } }, 'headers');
    const text = JSON.stringify(t().logs);
    for (const secret of [ws.serviceToken, ws.apiKey, ws.workspaceSecret, pair.secret, pair.key]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('never carry the request itself (headers, body) once its client has gone', async () => {
    // A line logged about a request after its connection closed (a busy server answering a client
    // that gave up): the request has no client address any more, and its raw form holds the headers.
    let captured: FastifyRequest | undefined;
    const late = await buildTestApp(
      {},
      {
        beforeReady: (app) =>
          app.addHook('onRequest', async (request) => {
            if (!request.url.includes('left-early')) return;
            // The connection goes before anything asked for the client's address (as a client giving up does).
            captured = request;
            request.raw.socket.destroy();
          }),
      },
    );
    try {
      const ws = await createWorkspaceFixture(late);
      await late.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = late.app.server.address() as AddressInfo;
      const body = JSON.stringify({ properties: { phone: 'private-marker' } });
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /v1/user/left-early/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ws.apiKey}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          );
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      expect(captured?.ip).toBeUndefined();
      late.app.log.info({ req: captured }, 'a late line about the request');
      const line = late.logs.find((entry) => entry.msg === 'a late line about the request');
      expect(line?.req).toEqual({ method: 'POST', url: '/v1/user/left-early/', host: '127.0.0.1' });
      const text = JSON.stringify(late.logs);
      expect(findCredentials(late.logs)).toEqual([]);
      expect(text).not.toContain('rawHeaders');
      expect(text).not.toContain('private-marker');
    } finally {
      await late.close();
    }
  });

  it('censor credential-named fields at any depth and in lists, without touching the logged object', async () => {
    const logged = {
      plain: 'visible',
      Authorization: 'Bearer abc',
      a: { b: { c: { workspace_secret: 's1' } } },
      list: [{ token: 't1' }, 'x', [{ password: 'p1' }]],
      empty: { key: null },
    };
    const before = structuredClone(logged);
    expect(censorCredentials(logged)).toEqual({
      plain: 'visible',
      Authorization: '[redacted]',
      a: { b: { c: { workspace_secret: '[redacted]' } } },
      list: [{ token: '[redacted]' }, 'x', [{ password: '[redacted]' }]],
      empty: { key: null },
    });
    expect(logged).toEqual(before);
    const clean = { a: { b: [1, 2] }, c: 'd' };
    expect(censorCredentials(clean)).toBe(clean);
    t().app.log.info({ deep: { er: { still: { api_key: 'deep-api-key-value' } } } }, 'deep');
    expect(JSON.stringify(t().logs)).not.toContain('deep-api-key-value');
  });
});
