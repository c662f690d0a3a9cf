import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { expectFieldErrors } from '../support/validation.js';
import { createServiceToken } from '../../src/repositories/service-tokens.js';
import { findAuthenticatingWorkspaceKey } from '../../src/repositories/workspace-keys.js';

const OPERATOR = { name: 'Test Operator', email: 'ops@example.com' };
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
const MISSING_ID = 'ws_key_01ARZ3NDEKTSV4RRFFQ69G5FAV';

const fullError = (code: number, error_code: string, type: string, message: string, detail: unknown = null) => ({
  code,
  error_code,
  type,
  message,
  detail,
});
const notFound = (message: string) => fullError(404, 'not_found', 'NotFound', message);

describe('management workspace keys', () => {
  const t = useTestApp();

  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
    t().app.inject({
      method,
      url: `/management/v1/${ws.slug}/ws_key/${path}`,
      headers: ws.management,
      ...(payload ? { payload } : {}),
    });
  const create = async (ws: WorkspaceFixture, payload: object) => {
    const response = await call(ws, 'POST', '', payload);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const rawRow = (id: string) =>
    t().db.selectFrom('workspace_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  describe('list', () => {
    it('lists every field, default first then by creation, deleted pairs included', async () => {
      const ws = await createWorkspaceFixture(t());
      const ci = await create(ws, { name: 'ci' });
      const web = await create(ws, { name: 'web' });
      expect((await call(ws, 'DELETE', `${ci.id}/`)).statusCode).toBe(204);

      const response = await call(ws, 'GET', '');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.meta).toEqual({ count: 3, limit: 20, offset: 0 });
      expect(body.results.map((k: { name: string }) => k.name)).toEqual(['default', 'ci', 'web']);
      expect(body.results[0]).toEqual({
        id: expect.stringMatching(/^ws_key_[0-9A-Z]{26}$/),
        name: 'default',
        key: ws.workspaceKey,
        secret: ws.workspaceSecret,
        is_default: true,
        is_active: true,
        is_deleted: false,
        allowed_domains: [],
        created_at: ISO,
        created_by: OPERATOR,
        rotated_at: null,
        rotated_by: null,
        deleted_at: null,
        deleted_by: null,
      });
      expect(body.results[1]).toMatchObject({
        id: ci.id,
        is_deleted: true,
        is_active: false,
        deleted_by: OPERATOR,
        secret: ci.secret,
      });
      expect(body.results[2]).toEqual(web);
    });

    it('pages with limit and offset in a stable order, and rejects out-of-range values', async () => {
      const ws = await createWorkspaceFixture(t());
      for (const name of ['a', 'b', 'c']) await create(ws, { name });
      const page = await call(ws, 'GET', '?limit=2&offset=1');
      expect(page.json().meta).toEqual({ count: 4, limit: 2, offset: 1 });
      expect(page.json().results.map((k: { name: string }) => k.name)).toEqual(['a', 'b']);
      expect((await call(ws, 'GET', '?limit=1000&offset=4')).json()).toEqual({
        meta: { count: 4, limit: 1000, offset: 4 },
        results: [],
      });
      for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'limit=x']) {
        const response = await call(ws, 'GET', `?${query}`);
        expect(response.statusCode, query).toBe(400);
        expect(response.json()).toMatchObject({ code: 400, error_code: 'validation_error', type: 'ValidationError' });
      }
    });
  });

  describe('create', () => {
    it('creates an active pair with the caller as created_by and normalised host names', async () => {
      const ws = await createWorkspaceFixture(t());
      const body = await create(ws, {
        name: 'web',
        allowed_domains: ['App.Example.com', 'app.example.com.', 'localhost', 'xn--bcher-kva.example'],
      });
      expect(body).toEqual({
        id: expect.stringMatching(/^ws_key_[0-9A-Z]{26}$/),
        name: 'web',
        key: expect.stringMatching(/^wsk_[A-Za-z0-9_-]{24}$/),
        secret: expect.stringMatching(/^wss_[A-Za-z0-9_-]{43}$/),
        is_default: false,
        is_active: true,
        is_deleted: false,
        allowed_domains: ['app.example.com', 'localhost', 'xn--bcher-kva.example'],
        created_at: ISO,
        created_by: OPERATOR,
        rotated_at: null,
        rotated_by: null,
        deleted_at: null,
        deleted_by: null,
      });
      expect((await call(ws, 'GET', `${body.id}/`)).json()).toEqual(body);
    });

    it('records a null created_by when the service token has no actor', async () => {
      const ws = await createWorkspaceFixture(t());
      const { token } = await createServiceToken(t().db, null);
      const response = await t().app.inject({
        method: 'POST',
        url: `/management/v1/${ws.slug}/ws_key/`,
        headers: { authorization: `ServiceToken ${token}` },
        payload: { name: 'anonymous' },
      });
      expect(response.statusCode).toBe(201);
      expect(response.json().created_by).toBeNull();
    });

    it('refuses a name already used in the workspace, deleted pairs included, with a 409 naming it', async () => {
      const ws = await createWorkspaceFixture(t());
      const first = await create(ws, { name: 'ci' });
      const again = await call(ws, 'POST', '', { name: 'ci' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual(
        fullError(409, 'conflict', 'Conflict', "a workspace key named 'ci' already exists in this workspace", {
          name: 'is taken',
        }),
      );
      expect(again.body).not.toContain(first.secret);
      expect((await call(ws, 'POST', '', { name: 'default' })).statusCode).toBe(409);
      await call(ws, 'DELETE', `${first.id}/`);
      expect((await call(ws, 'POST', '', { name: 'ci' })).statusCode).toBe(409);
      // The same name in another workspace is fine.
      const other = await createWorkspaceFixture(t());
      await create(other, { name: 'ci' });
    });

    it('lets exactly one of several concurrent creates with one name win', async () => {
      const ws = await createWorkspaceFixture(t());
      const responses = await Promise.all(Array.from({ length: 5 }, () => call(ws, 'POST', '', { name: 'race' })));
      expect(responses.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409]);
      for (const r of responses.filter((r) => r.statusCode === 409))
        expect(r.json().message).toBe("a workspace key named 'race' already exists in this workspace");
    });

    it('answers bad bodies with 400 keyed by field', async () => {
      const ws = await createWorkspaceFixture(t());
      await expectFieldErrors(
        (payload) => call(ws, 'POST', '', payload),
        [
          [{}, 'name'],
          [{ name: '' }, 'name'],
          [{ name: '   ' }, 'name'],
          [{ name: 'x'.repeat(101) }, 'name'],
          [{ name: 'ok', extra: 1 }, 'extra'],
          [{ name: 'ok', allowed_domains: ['https://app.example.com'] }, 'allowed_domains.0'],
          [{ name: 'ok', allowed_domains: ['good.example', 'bad domain'] }, 'allowed_domains.1'],
          [{ name: 'ok', allowed_domains: ['-bad.example'] }, 'allowed_domains.0'],
          [{ name: 'ok', allowed_domains: Array.from({ length: 101 }, (_, i) => `h${i}.example`) }, 'allowed_domains'],
        ],
      );
      expect((await call(ws, 'GET', '')).json().meta.count).toBe(1);
    });
  });

  describe('fetch', () => {
    it('answers an unknown, malformed or other workspace id with 404 naming it', async () => {
      const a = await createWorkspaceFixture(t());
      const b = await createWorkspaceFixture(t());
      const pairOfA = await create(a, { name: 'mine' });
      for (const id of [MISSING_ID, 'not-an-id', 'ws_apik_01ARZ3NDEKTSV4RRFFQ69G5FAV', pairOfA.id]) {
        const response = await call(b, 'GET', `${id}/`);
        expect(response.statusCode, id).toBe(404);
        expect(response.json()).toEqual(notFound(`workspace key '${id}' not found`));
      }
    });
  });

  describe('rotate', () => {
    it('keeps the key, replaces the secret and records who rotated it; the old secret is gone at once', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'ci', allowed_domains: ['ci.example.com'] });
      const response = await call(ws, 'POST', `${pair.id}/rotate/`);
      expect(response.statusCode).toBe(200);
      const rotated = response.json();
      expect(rotated).toEqual({
        ...pair,
        secret: expect.stringMatching(/^wss_/),
        rotated_at: ISO,
        rotated_by: OPERATOR,
      });
      expect(rotated.secret).not.toBe(pair.secret);
      expect(Date.parse(rotated.rotated_at)).toBeGreaterThanOrEqual(Date.parse(pair.created_at));
      const auth = await findAuthenticatingWorkspaceKey(t().db, pair.key);
      expect(t().secretBox.decrypt(auth!.secret_ciphertext)).toBe(rotated.secret);
      expect((await call(ws, 'GET', `${pair.id}/`)).json()).toEqual(rotated);
    });

    it('rotates the default pair', async () => {
      const ws = await createWorkspaceFixture(t());
      const [defaultPair] = (await call(ws, 'GET', '')).json().results;
      const rotated = (await call(ws, 'POST', `${defaultPair.id}/rotate/`)).json();
      expect(rotated).toMatchObject({
        id: defaultPair.id,
        is_default: true,
        key: ws.workspaceKey,
        rotated_by: OPERATOR,
      });
      expect(rotated.secret).not.toBe(ws.workspaceSecret);
    });

    it('leaves exactly one valid secret after concurrent rotations', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'busy' });
      const responses = await Promise.all(Array.from({ length: 8 }, () => call(ws, 'POST', `${pair.id}/rotate/`)));
      expect(responses.map((r) => r.statusCode)).toEqual(Array(8).fill(200));
      const secrets = responses.map((r) => r.json().secret as string);
      expect(new Set(secrets).size).toBe(8);
      const stored = t().secretBox.decrypt((await rawRow(pair.id)).secret_ciphertext);
      expect(secrets.filter((secret) => secret === stored)).toHaveLength(1);
      expect((await call(ws, 'GET', `${pair.id}/`)).json().secret).toBe(stored);
    });

    it('answers unknown and deleted pairs with 404', async () => {
      const ws = await createWorkspaceFixture(t());
      expect((await call(ws, 'POST', `${MISSING_ID}/rotate/`)).json()).toEqual(
        notFound(`workspace key '${MISSING_ID}' not found`),
      );
      expect((await call(ws, 'POST', 'nope/rotate/')).json()).toEqual(notFound("workspace key 'nope' not found"));
      const pair = await create(ws, { name: 'gone' });
      await call(ws, 'DELETE', `${pair.id}/`);
      const response = await call(ws, 'POST', `${pair.id}/rotate/`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(notFound(`workspace key '${pair.id}' has been deleted`));
      expect(t().secretBox.decrypt((await rawRow(pair.id)).secret_ciphertext)).toBe(pair.secret);
    });
  });

  describe('pause and resume', () => {
    it('moves a pair active → paused → active, and only an active pair is found for authentication', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'sdk' });
      expect(await findAuthenticatingWorkspaceKey(t().db, pair.key)).toBeDefined();

      const paused = await call(ws, 'PATCH', `${pair.id}/`, { is_active: false });
      expect(paused.statusCode).toBe(200);
      expect(paused.json()).toEqual({ ...pair, is_active: false });
      expect(await findAuthenticatingWorkspaceKey(t().db, pair.key)).toBeUndefined();
      expect((await call(ws, 'PATCH', `${pair.id}/`, { is_active: false })).json().is_active).toBe(false);

      const resumed = await call(ws, 'PATCH', `${pair.id}/`, { is_active: true });
      expect(resumed.json()).toEqual(pair);
      expect(await findAuthenticatingWorkspaceKey(t().db, pair.key)).toBeDefined();
    });

    it('rejects bad bodies with 400 and never resumes a deleted pair', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'sdk' });
      for (const payload of [{}, { is_active: 'maybe' }, { is_active: true, name: 'x' }]) {
        expect((await call(ws, 'PATCH', `${pair.id}/`, payload)).statusCode, JSON.stringify(payload)).toBe(400);
      }
      await call(ws, 'DELETE', `${pair.id}/`);
      const response = await call(ws, 'PATCH', `${pair.id}/`, { is_active: true });
      expect(response.json()).toEqual(notFound(`workspace key '${pair.id}' has been deleted`));
      expect(await rawRow(pair.id)).toMatchObject({ is_active: false, is_deleted: true });
      expect((await call(ws, 'PATCH', `${MISSING_ID}/`, { is_active: true })).statusCode).toBe(404);
    });
  });

  describe('delete', () => {
    it('marks the pair deleted and inactive, records who, answers 204 with no body, and stops authentication', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'old' });
      const response = await call(ws, 'DELETE', `${pair.id}/`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      const after = (await call(ws, 'GET', `${pair.id}/`)).json();
      expect(after).toEqual({ ...pair, is_active: false, is_deleted: true, deleted_at: ISO, deleted_by: OPERATOR });
      expect(await findAuthenticatingWorkspaceKey(t().db, pair.key)).toBeUndefined();

      const again = await call(ws, 'DELETE', `${pair.id}/`);
      expect(again.statusCode).toBe(404);
      expect(again.json()).toEqual(notFound(`workspace key '${pair.id}' has been deleted`));
      expect((await call(ws, 'GET', `${pair.id}/`)).json().deleted_at).toBe(after.deleted_at);
    });

    it('refuses to delete the default pair with a 400 saying so', async () => {
      const ws = await createWorkspaceFixture(t());
      const [defaultPair] = (await call(ws, 'GET', '')).json().results;
      const response = await call(ws, 'DELETE', `${defaultPair.id}/`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(
        fullError(
          400,
          'validation_error',
          'ValidationError',
          `workspace key '${defaultPair.id}' is the workspace's default pair and cannot be deleted; rotate it instead`,
          {
            id: 'is the default pair',
          },
        ),
      );
      expect((await call(ws, 'GET', `${defaultPair.id}/`)).json()).toEqual(defaultPair);
    });

    it('answers unknown and malformed ids with 404', async () => {
      const ws = await createWorkspaceFixture(t());
      for (const id of [MISSING_ID, 'ws_key_', 'x']) {
        expect((await call(ws, 'DELETE', `${id}/`)).json(), id).toEqual(notFound(`workspace key '${id}' not found`));
      }
    });
  });

  it('never lets one workspace read or change another workspace’s pair', async () => {
    const a = await createWorkspaceFixture(t());
    const b = await createWorkspaceFixture(t());
    const pair = await create(a, { name: 'private' });
    const attempts = [
      call(b, 'GET', `${pair.id}/`),
      call(b, 'POST', `${pair.id}/rotate/`),
      call(b, 'PATCH', `${pair.id}/`, { is_active: false }),
      call(b, 'DELETE', `${pair.id}/`),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(notFound(`workspace key '${pair.id}' not found`));
    }
    expect((await call(b, 'GET', '')).json().results.map((k: { id: string }) => k.id)).not.toContain(pair.id);
    expect((await call(a, 'GET', `${pair.id}/`)).json()).toEqual(pair);
  });

  it('checks the service token and the workspace on every route', async () => {
    const ws = await createWorkspaceFixture(t());
    const pair = await create(ws, { name: 'p' });
    const routes: [string, string, object?][] = [
      ['GET', ''],
      ['POST', '', { name: 'n' }],
      ['GET', `${pair.id}/`],
      ['POST', `${pair.id}/rotate/`],
      ['PATCH', `${pair.id}/`, { is_active: false }],
      ['DELETE', `${pair.id}/`],
    ];
    for (const [method, path, payload] of routes) {
      const anonymous = await t().app.inject({
        method: method as 'GET',
        url: `/management/v1/${ws.slug}/ws_key/${path}`,
        payload,
      });
      expect(anonymous.statusCode, `${method} ${path}`).toBe(401);
      expect(anonymous.json()).toMatchObject({
        code: 401,
        error_code: 'authentication_failed',
        type: 'AuthenticationFailed',
      });
      const badToken = await t().app.inject({
        method: method as 'GET',
        url: `/management/v1/${ws.slug}/ws_key/${path}`,
        headers: { authorization: 'ServiceToken hst_nope' },
        payload,
      });
      expect(badToken.statusCode, `${method} ${path}`).toBe(401);
      const unknown = await t().app.inject({
        method: method as 'GET',
        url: `/management/v1/no-such-ws/ws_key/${path}`,
        headers: ws.management,
        payload,
      });
      expect(unknown.statusCode, `${method} ${path}`).toBe(404);
      expect(unknown.json()).toEqual(notFound("workspace 'no-such-ws' not found"));
    }
    expect((await call(ws, 'GET', `${pair.id}/`)).json()).toEqual(pair);
  });

  describe('secrets', () => {
    it('stores no plaintext secret, before or after rotation', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'at-rest' });
      const rotated = (await call(ws, 'POST', `${pair.id}/rotate/`)).json();
      const { rows } = await sql<
        Record<string, unknown>
      >`select * from workspace_keys where workspace_id = ${ws.workspaceId}`.execute(t().db);
      const raw = JSON.stringify(rows);
      for (const secret of [pair.secret, rotated.secret, ws.workspaceSecret]) {
        expect(raw).not.toContain(secret);
        expect(raw).not.toContain(secret.slice(4));
      }
      expect(raw).toContain(pair.key);
    });

    it('writes neither key nor secret to the log', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'quiet' });
      const rotated = (await call(ws, 'POST', `${pair.id}/rotate/`)).json();
      await call(ws, 'GET', '');
      await call(ws, 'POST', '', { name: 'quiet' });
      const logged = JSON.stringify(t().logs);
      for (const value of [pair.key, pair.secret, rotated.secret, ws.workspaceKey, ws.workspaceSecret])
        expect(logged).not.toContain(value);
    });

    it('lets the database refuse a row whose flags disagree', async () => {
      const ws = await createWorkspaceFixture(t());
      const pair = await create(ws, { name: 'flags' });
      const update = (set: Record<string, unknown>, id = pair.id) =>
        t().db.updateTable('workspace_keys').set(set).where('id', '=', id).execute();
      await expect(update({ is_deleted: true, deleted_at: new Date() })).rejects.toThrow(
        /workspace_keys_deleted_is_inactive/,
      );
      await expect(update({ is_deleted: true, is_active: false })).rejects.toThrow(/workspace_keys_deleted_at_set/);
      const [defaultPair] = (await call(ws, 'GET', '')).json().results;
      await expect(
        update({ is_deleted: true, is_active: false, deleted_at: new Date() }, defaultPair.id),
      ).rejects.toThrow(/workspace_keys_default_not_deleted/);
    });
  });

  describe('findAuthenticatingWorkspaceKey', () => {
    it('returns the live pair with its workspace and nothing for an unknown key', async () => {
      const ws = await createWorkspaceFixture(t());
      const found = await findAuthenticatingWorkspaceKey(t().db, ws.workspaceKey);
      expect(found).toMatchObject({
        workspace_key_id: expect.stringMatching(/^ws_key_/),
        id: ws.workspaceId,
        slug: ws.slug,
      });
      expect(t().secretBox.decrypt(found!.secret_ciphertext)).toBe(ws.workspaceSecret);
      expect(await findAuthenticatingWorkspaceKey(t().db, 'wsk_unknown')).toBeUndefined();
    });
  });
});
