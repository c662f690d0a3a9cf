import { describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

describe('error responses', () => {
  const t = useTestApp();

  it('answers an unknown route with 404 in the full shape', async () => {
    const response = await t().app.inject({ method: 'GET', url: '/v1/nothing-here/' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      code: 404,
      error_code: 'not_found',
      type: 'NotFound',
      message: 'no route for GET /v1/nothing-here/',
      detail: null,
    });
  });

  it('answers a known path with a wrong method with 405 and Allow', async () => {
    const response = await t().app.inject({ method: 'PUT', url: '/management/v1/workspace/' });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe('GET, POST');
    expect(response.json()).toMatchObject({ code: 405, error_code: 'method_not_allowed', type: 'MethodNotAllowed' });
  });

  it('answers malformed JSON with 400 in the full shape', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({
      method: 'POST',
      url: '/management/v1/workspace/',
      headers: { ...ws.management, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      code: 400,
      error_code: 'validation_error',
      type: 'ValidationError',
      message: expect.stringContaining('not valid JSON'),
    });
  });

  it('answers schema violations with 400 and detail keyed by field', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({
      method: 'POST',
      url: '/management/v1/workspace/',
      headers: ws.management,
      payload: { name: 7, extra: true },
    });
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ code: 400, error_code: 'validation_error', type: 'ValidationError' });
    expect(Object.keys(body.detail).length).toBeGreaterThan(0);
    expect(body.message).toMatch(/^(name|extra) /);
  });

  it('answers an unsupported content type with 415', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({
      method: 'POST',
      url: '/management/v1/workspace/',
      headers: { ...ws.management, 'content-type': 'text/xml' },
      payload: '<name/>',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 415, error_code: 'unsupported_media_type' });
  });

  it('carries a request id on every response', async () => {
    const response = await t().app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-123' } });
    expect(response.headers['x-request-id']).toBe('trace-123');
    const generated = await t().app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9A-Z]{26}$/);
  });
});

describe('limits and internal failures', () => {
  it('answers a body over BODY_LIMIT with 413 in the full shape', async () => {
    const t = await buildTestApp({ BODY_LIMIT: '2048' });
    try {
      const ws = await createWorkspaceFixture(t);
      const response = await t.app.inject({
        method: 'POST',
        url: '/management/v1/workspace/',
        headers: ws.management,
        payload: { name: 'x', description: 'y'.repeat(4000) },
      });
      expect(response.statusCode).toBe(413);
      expect(response.json()).toMatchObject({ code: 413, error_code: 'payload_too_large', type: 'PayloadTooLarge' });
    } finally {
      await t.close();
    }
  });

  it('hides the cause of a 500 from the client and logs it with the request id', async () => {
    const t = await buildTestApp();
    try {
      const ws = await createWorkspaceFixture(t);
      // Break the database under a real route: the workspaces table goes away for this app only.
      await t.db.destroy();
      const response = await t.app.inject({ method: 'GET', url: '/management/v1/workspace/', headers: ws.management });
      expect([500, 503]).toContain(response.statusCode);
      const body = response.json();
      expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'error_code', 'message', 'type']);
      expect(JSON.stringify(body)).not.toMatch(/at .*\.ts|Error:|destroy|driver/i);
      const logged = t.logs.find((line) => line.level === 50);
      expect(logged).toBeDefined();
      expect(logged?.reqId).toBe(response.headers['x-request-id']);
    } finally {
      await t.app.close();
    }
  });
});
