import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-depth.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { recordFigures } from '../support/figures.js';
import { authFor } from '../support/fuzz.js';
import { FULL_ERROR_KEYS, keysOf, sleep } from '../support/load.js';
import { problemWith, routeCatalogue, type CatalogueRoute } from '../support/routes.js';

const REQUEST_TIMEOUT_MS = 1000;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** A concrete URL for a route: every path parameter filled with a plain value. */
const urlOf = (route: CatalogueRoute, ws: WorkspaceFixture) =>
  route.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'workspace' ? ws.slug : 'limits-test'));

describe('request limits on every route that takes a body', () => {
  const t = useTestApp({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) });
  let ws: WorkspaceFixture;
  let bodyRoutes: CatalogueRoute[];
  const figures = {
    routes_with_a_body: 0,
    oversized_bodies_sent: 0,
    deep_bodies_sent: 0,
    slow_connections_opened: 0,
    slowest_slow_connection_closed_ms: 0,
  };
  beforeAll(async () => {
    ws = await createWorkspaceFixture(t());
    bodyRoutes = (await routeCatalogue(t().app)).filter((route) => BODY_METHODS.has(route.method));
    figures.routes_with_a_body = bodyRoutes.length;
  });
  afterAll(() => recordFigures('limits', figures));

  const send = (route: CatalogueRoute, payload: string) =>
    t().app.inject({
      method: route.method,
      url: urlOf(route, ws),
      headers: { ...authFor(route, ws), 'content-type': 'application/json' },
      payload,
    });

  it('answers a body over BODY_LIMIT with 413 in the route’s documented shape, before any handler runs', async () => {
    expect(bodyRoutes.length).toBeGreaterThan(0);
    const oversized = JSON.stringify({ name: 'x'.repeat(t().config.BODY_LIMIT) });
    for (const route of bodyRoutes) {
      const response = await send(route, oversized);
      figures.oversized_bodies_sent += 1;
      expect(response.statusCode, route.label).toBe(413);
      expect(problemWith(route, response), route.label).toBeUndefined();
    }
  });

  it(`refuses JSON nested deeper than ${MAX_JSON_DEPTH} levels with 400, up to 100,000 levels, without overflowing the stack`, async () => {
    for (const route of bodyRoutes) {
      for (const levels of [MAX_JSON_DEPTH + 1, 1_000, 100_000]) {
        for (const payload of [
          '['.repeat(levels) + ']'.repeat(levels),
          `{"name":"n","x":${'{"a":'.repeat(levels - 1)}1${'}'.repeat(levels - 1)}}`,
        ]) {
          const response = await send(route, payload);
          figures.deep_bodies_sent += 1;
          expect(response.statusCode, `${route.label} ${levels}`).toBe(400);
          expect(problemWith(route, response), route.label).toBeUndefined();
        }
      }
      // At the limit the depth rule does not apply (the route's own schema may still refuse the body).
      const atLimit = await send(route, `{"x":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`);
      expect(atLimit.body, route.label).not.toContain('nests deeper');
    }
  }, 180_000); // six deep bodies on every body route: the route count grows with the API

  it('answers malformed percent-encoding and over-long path parameters (refused before routing) in the full shape', async () => {
    const badEncoding = await t().app.inject({ method: 'GET', url: '/v1/user/%zz/', headers: ws.base });
    expect(badEncoding.statusCode).toBe(400);
    expect(keysOf(badEncoding.json())).toEqual(FULL_ERROR_KEYS);
    const longParameter = await t().app.inject({
      method: 'GET',
      url: `/v1/user/${'u'.repeat(1025)}/`,
      headers: ws.base,
    });
    expect(longParameter.statusCode).toBe(414);
    expect(keysOf(longParameter.json())).toEqual(FULL_ERROR_KEYS);
  });

  describe('slow clients (slow loris)', () => {
    let port: number;
    beforeAll(async () => {
      const address = await t().app.listen({ port: 0, host: '127.0.0.1' });
      port = Number(new URL(address).port);
    });

    /** Opens a raw connection, writes `head`, then one byte of `drip` every 200 ms; resolves when the server closes it. */
    const trickle = (head: string, drip: string) =>
      new Promise<{ closedAfterMs: number; received: string }>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        const opened = Date.now();
        let received = '';
        let timer: NodeJS.Timeout | undefined;
        socket.setEncoding('utf8');
        socket.on('data', (chunk) => (received += chunk));
        socket.on('error', () => {});
        socket.on('close', () => {
          clearInterval(timer);
          resolve({ closedAfterMs: Date.now() - opened, received });
        });
        socket.on('connect', () => {
          socket.write(head);
          let i = 0;
          timer = setInterval(() => {
            if (!socket.destroyed && drip) socket.write(drip[i++ % drip.length]!);
          }, 200);
        });
        setTimeout(
          () => reject(new Error(`connection still open after 15 s; received ${JSON.stringify(received)}`)),
          15_000,
        ).unref();
      });

    it('closes a connection that trickles its body or its headers, stays silent, or keeps sending after being refused, within the request timeout, while serving others', async () => {
      const slowBody = trickle(
        `POST /management/v1/workspace/ HTTP/1.1\r\nHost: x\r\nAuthorization: ${ws.management.authorization}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
        '{"name":"',
      );
      const slowHeaders = trickle('GET /healthz HTTP/1.1\r\nHost: x\r\n', 'X-Slow: 1\r\n');
      const silent = trickle('', '');
      const refusedButTrickling = trickle(
        `POST /management/v1/workspace/ HTTP/1.1\r\nHost: x\r\nAuthorization: ServiceToken wrong\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
        '{"name":"',
      );
      figures.slow_connections_opened += 4;
      await sleep(300);
      const meanwhile = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(meanwhile.status).toBe(200);
      const results = await Promise.all([slowBody, slowHeaders, silent, refusedButTrickling]);
      for (const { closedAfterMs, received } of results) {
        // Node checks request deadlines twice a second: closed within the timeout plus one check, and some slack.
        expect(closedAfterMs).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS + 500 + 2500);
        // A silent connection is simply dropped; one that sent a request start is told 408 first.
        if (received) expect(received).toContain('HTTP/1.1 408 Request Timeout');
      }
      figures.slowest_slow_connection_closed_ms = Math.max(...results.map((r) => r.closedAfterMs));
    });
  });
});
