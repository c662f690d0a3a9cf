import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { expectFieldErrors } from '../support/validation.js';

const OPERATOR = { name: 'Test Operator', email: 'ops@example.com' };
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
const MISSING_ID = 'ws_apik_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const notFound = (message: string) => ({ code: 404, error_code: 'not_found', type: 'NotFound', message, detail: null });

describe('management API keys', () => {
  const t = useTestApp();

  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) =>
    t().app.inject({
      method,
      url: `/management/v1/${ws.slug}/ws_api_key/${path}`,
      headers: ws.management,
      ...(payload ? { payload } : {}),
    });
  const create = async (ws: WorkspaceFixture, payload: object = { name: 'server' }) => {
    const response = await call(ws, 'POST', '', payload);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  /** A base call: 404 (no such user) means the key authenticated, 401 that it did not. */
  const baseCallWith = async (apiKey: string) =>
    (await t().app.inject({ method: 'GET', url: '/v1/user/x/', headers: { authorization: `Bearer ${apiKey}` } }))
      .statusCode;

  describe('create', () => {
    it('answers 201 with the full key this once, and the key authenticates base calls', async () => {
      const ws = await createWorkspaceFixture(t());
      const created = await create(ws, { name: 'backend', description: 'order service' });
      expect(created).toEqual({
        id: expect.stringMatching(/^ws_apik_[0-9A-Z]{26}$/),
        name: 'backend',
        description: 'order service',
        masked_api_key: `${created.api_key.slice(0, 8)}${'*'.repeat(16)}${created.api_key.slice(-4)}`,
        is_deleted: false,
        created_at: ISO,
        created_by: OPERATOR,
        deleted_at: null,
        deleted_by: null,
        api_key: expect.stringMatching(/^hak_[A-Za-z0-9_-]{43}$/),
      });
      expect(await baseCallWith(created.api_key)).toBe(404);
      expect((await create(ws, { name: 'no description' })).description).toBeNull();
    });

    it('stores only a hash of the key', async () => {
      const ws = await createWorkspaceFixture(t());
      const created = await create(ws);
      const { rows } = await sql<Record<string, unknown>>`select * from api_keys where id = ${created.id}`.execute(
        t().db,
      );
      expect(JSON.stringify(rows)).not.toContain(created.api_key.slice(4, 40));
    });

    it('answers bad bodies with 400 keyed by field', async () => {
      const ws = await createWorkspaceFixture(t());
      await expectFieldErrors(
        (payload) => call(ws, 'POST', '', payload),
        [
          [{}, 'name'],
          [{ name: '' }, 'name'],
          [{ name: ' ' }, 'name'],
          [{ name: 'x'.repeat(101) }, 'name'],
          [{ name: 'ok', description: 'd'.repeat(2001) }, 'description'],
          [{ name: 'ok', scopes: ['all'] }, 'scopes'],
        ],
      );
    });
  });

  describe('list', () => {
    it('lists masked keys only, oldest first, disabled ones flagged', async () => {
      const ws = await createWorkspaceFixture(t());
      const first = await create(ws, { name: 'first' });
      const second = await create(ws, { name: 'second' });
      await call(ws, 'DELETE', `${first.id}/`);

      const response = await call(ws, 'GET', '');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.meta).toEqual({ count: 3, limit: 20, offset: 0 });
      expect(body.results.map((k: { id: string }) => k.id)).toEqual([ws.apiKeyId, first.id, second.id]);
      const { api_key: secondKey, ...secondListed } = second;
      expect(body.results[2]).toEqual(secondListed);
      expect(body.results[1]).toEqual({
        ...first,
        api_key: undefined,
        is_deleted: true,
        deleted_at: ISO,
        deleted_by: OPERATOR,
      });
      for (const key of [ws.apiKey, first.api_key, secondKey]) expect(response.body).not.toContain(key);
    });

    it('pages with limit and offset and rejects out-of-range values', async () => {
      const ws = await createWorkspaceFixture(t());
      const created = await create(ws, { name: 'b' });
      await create(ws, { name: 'c' });
      const page = (await call(ws, 'GET', '?limit=1&offset=1')).json();
      expect(page.meta).toEqual({ count: 3, limit: 1, offset: 1 });
      expect(page.results.map((k: { id: string }) => k.id)).toEqual([created.id]);
      for (const query of ['limit=0', 'limit=1001', 'offset=-1']) {
        const response = await call(ws, 'GET', `?${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(response.json().error_code).toBe('validation_error');
      }
    });
  });

  describe('delete', () => {
    it('disables the key: 204 with an empty body, and the very next base call gets 401', async () => {
      const ws = await createWorkspaceFixture(t());
      const created = await create(ws);
      expect(await baseCallWith(created.api_key)).toBe(404);
      const response = await call(ws, 'DELETE', `${created.id}/`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(await baseCallWith(created.api_key)).toBe(401);
      expect(await baseCallWith(ws.apiKey)).toBe(404);
      const row = await t()
        .db.selectFrom('api_keys')
        .select(['deleted_at', 'deleted_by'])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      expect(row.deleted_at).toBeInstanceOf(Date);
      expect(row.deleted_by).toEqual(OPERATOR);
    });

    it('answers a second delete, an unknown id and an id without the prefix with 404 naming the id', async () => {
      const ws = await createWorkspaceFixture(t());
      const created = await create(ws);
      await call(ws, 'DELETE', `${created.id}/`);
      const deletedAt = async () =>
        (await call(ws, 'GET', '')).json().results.find((k: { id: string }) => k.id === created.id).deleted_at;
      const firstDeletedAt = await deletedAt();
      for (const id of [
        created.id,
        MISSING_ID,
        'not-a-key',
        'ws_key_01ARZ3NDEKTSV4RRFFQ69G5FAV',
        'ws_apik_',
        `ws_apik_${'Z'.repeat(300)}`,
      ]) {
        const response = await call(ws, 'DELETE', `${id}/`);
        expect(response.statusCode, id).toBe(404);
        expect(response.json()).toEqual(notFound(`API key '${id}' not found`));
      }
      expect(await deletedAt()).toBe(firstDeletedAt);
    });
  });

  it('never lets a key of workspace A be deleted, listed or used through workspace B', async () => {
    const a = await createWorkspaceFixture(t());
    const b = await createWorkspaceFixture(t());
    const keyOfA = await create(a, { name: 'a-only' });
    const attempt = await call(b, 'DELETE', `${keyOfA.id}/`);
    expect(attempt.statusCode).toBe(404);
    expect(attempt.json()).toEqual(notFound(`API key '${keyOfA.id}' not found`));
    expect(await baseCallWith(keyOfA.api_key)).toBe(404);
    const listedInB = (await call(b, 'GET', '?limit=1000')).json().results.map((k: { id: string }) => k.id);
    expect(listedInB).toEqual([b.apiKeyId]);

    // Used: the key resolves to its own workspace only, whatever data B holds.
    await t().db.insertInto('users').values({ workspace_id: b.workspaceId, distinct_id: 'b-user' }).execute();
    const fromA = await t().app.inject({
      method: 'GET',
      url: '/v1/user/b-user/',
      headers: { authorization: `Bearer ${keyOfA.api_key}` },
    });
    expect(fromA.statusCode).toBe(404);
  });

  it('checks the service token and the workspace on every route', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await create(ws);
    const routes: [string, string, object?][] = [
      ['GET', ''],
      ['POST', '', { name: 'n' }],
      ['DELETE', `${created.id}/`],
    ];
    for (const [method, path, payload] of routes) {
      const url = `/management/v1/${ws.slug}/ws_api_key/${path}`;
      for (const headers of [
        {},
        { authorization: 'ServiceToken hst_nope' },
        { authorization: `Bearer ${ws.apiKey}` },
      ]) {
        const response = await t().app.inject({ method: method as 'GET', url, headers, payload });
        expect(response.statusCode, `${method} ${path}`).toBe(401);
        expect(response.json()).toMatchObject({
          code: 401,
          error_code: 'authentication_failed',
          type: 'AuthenticationFailed',
        });
      }
      const unknown = await t().app.inject({
        method: method as 'GET',
        url: `/management/v1/no-such-ws/ws_api_key/${path}`,
        headers: ws.management,
        payload,
      });
      expect(unknown.statusCode, `${method} ${path}`).toBe(404);
      expect(unknown.json()).toEqual(notFound("workspace 'no-such-ws' not found"));
    }
    expect(await baseCallWith(created.api_key)).toBe(404);
  });

  it('writes no API key to the log', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await create(ws);
    await baseCallWith(created.api_key);
    await call(ws, 'DELETE', `${created.id}/`);
    await baseCallWith(created.api_key);
    expect(JSON.stringify(t().logs)).not.toContain(created.api_key);
  });

  it('documents every key endpoint with its schemas and marks the sensitive fields', async () => {
    const ws = await createWorkspaceFixture(t());
    const document = (
      await t().app.inject({ method: 'GET', url: '/management/openapi.json', headers: ws.management })
    ).json();
    const operations = Object.values(
      document.paths as Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>,
    )
      .flatMap((item) => Object.values(item))
      .filter((op) => op.operationId);
    const byId = Object.fromEntries(operations.map((op) => [op.operationId, op]));
    for (const id of [
      'listWorkspaceKeys',
      'createWorkspaceKey',
      'getWorkspaceKey',
      'rotateWorkspaceKey',
      'updateWorkspaceKey',
      'deleteWorkspaceKey',
      'listApiKeys',
      'createApiKey',
      'deleteApiKey',
    ]) {
      expect(byId[id], id).toBeDefined();
      expect(Object.keys(byId[id]!.responses), id).toEqual(expect.arrayContaining(['401', '404']));
    }
    expect(byId.deleteApiKey!.responses['204']).toEqual({ description: 'Disabled; empty body' });
    const schemas = document.components.schemas;
    expect(schemas.WorkspaceKey.properties.key.description).toMatch(/^Sensitive/);
    expect(schemas.WorkspaceKey.properties.secret.description).toMatch(/^Sensitive/);
    expect(schemas.CreatedApiKey.properties.api_key.description).toMatch(/^Sensitive/);
    expect(schemas.ApiKey.properties).not.toHaveProperty('api_key');
  });
});
