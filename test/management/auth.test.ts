import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { createServiceToken } from '../../src/repositories/service-tokens.js';
import { revokeServiceTokenEverywhere } from '../../src/services/credential-changes.js';

const authenticationFailed = (message: string) => ({
  code: 401,
  error_code: 'authentication_failed',
  type: 'AuthenticationFailed',
  message,
  detail: null,
});

describe('management authentication', () => {
  const t = useTestApp();

  it('answers a missing service token with the full 401 body', async () => {
    const response = await t().app.inject({ method: 'GET', url: '/management/v1/workspace/' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(
      authenticationFailed('missing or malformed Authorization header; expected "ServiceToken <TOKEN>"'),
    );
  });

  it('refuses an unknown token, a Bearer API key and a bare token', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const authorization of ['ServiceToken hst_nope', `Bearer ${ws.apiKey}`, ws.serviceToken, 'ServiceToken ']) {
      const response = await t().app.inject({
        method: 'GET',
        url: '/management/v1/workspace/',
        headers: { authorization },
      });
      expect(response.statusCode, authorization).toBe(401);
      expect(response.json().error_code).toBe('authentication_failed');
    }
  });

  it('accepts a valid token and lists the workspace', async () => {
    const ws = await createWorkspaceFixture(t());
    // Workspaces are listed oldest first: the newest page holds the one just created.
    const first = await t().app.inject({
      method: 'GET',
      url: '/management/v1/workspace/?limit=1',
      headers: ws.management,
    });
    const offset = Math.max(0, first.json().meta.count - 1000);
    const response = await t().app.inject({
      method: 'GET',
      url: `/management/v1/workspace/?limit=1000&offset=${offset}`,
      headers: ws.management,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().results.map((w: { slug: string }) => w.slug)).toContain(ws.slug);
  });

  it('refuses a revoked token on the very next request', async () => {
    const { id, token } = await createServiceToken(t().db, null);
    const headers = { authorization: `ServiceToken ${token}` };
    expect((await t().app.inject({ method: 'GET', url: '/management/v1/workspace/', headers })).statusCode).toBe(200);
    expect(await revokeServiceTokenEverywhere(t().db, t().app.credentials, id)).toBe(true);
    expect((await t().app.inject({ method: 'GET', url: '/management/v1/workspace/', headers })).statusCode).toBe(401);
  });

  it('answers an unknown workspace with 404 naming the slug, after checking the token', async () => {
    const ws = await createWorkspaceFixture(t());
    const response = await t().app.inject({
      method: 'GET',
      url: '/management/v1/no-such-ws/ws_key/',
      headers: ws.management,
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      code: 404,
      error_code: 'not_found',
      type: 'NotFound',
      message: "workspace 'no-such-ws' not found",
      detail: null,
    });
    const anonymous = await t().app.inject({ method: 'GET', url: '/management/v1/no-such-ws/ws_key/' });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('management workspaces', () => {
  const t = useTestApp();

  it('creates a workspace with its default key pair and lists it', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await t().app.inject({
      method: 'POST',
      url: '/management/v1/workspace/',
      headers: ws.management,
      payload: { name: `Production EU ${ws.workspaceId}`, description: 'live traffic' },
    });
    const slug = `production-eu-${ws.workspaceId}`;
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ slug, name: `Production EU ${ws.workspaceId}`, description: 'live traffic' });
    expect(body.default_workspace_key).toMatchObject({
      is_default: true,
      is_active: true,
      is_deleted: false,
      name: 'default',
    });
    expect(body.default_workspace_key.created_by).toEqual({ name: 'Test Operator', email: 'ops@example.com' });
    expect(body.default_workspace_key.id).toMatch(/^ws_key_[0-9A-Z]{26}$/);

    const keys = await t().app.inject({ method: 'GET', url: `/management/v1/${slug}/ws_key/`, headers: ws.management });
    expect(keys.json().results).toEqual([body.default_workspace_key]);

    const tenant = await t()
      .db.selectFrom('tenants')
      .innerJoin('workspaces', 'workspaces.id', 'tenants.workspace_id')
      .select('tenant_id')
      .where('workspaces.slug', '=', slug)
      .execute();
    expect(tenant).toEqual([{ tenant_id: 'default' }]);
  });

  it('refuses a duplicate slug with 409 and a bad slug with 400', async () => {
    const ws = await createWorkspaceFixture(t());
    const again = await t().app.inject({
      method: 'POST',
      url: '/management/v1/workspace/',
      headers: ws.management,
      payload: { name: 'x', slug: ws.slug },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 409,
      error_code: 'conflict',
      message: `workspace '${ws.slug}' already exists`,
    });
    const bad = await t().app.inject({
      method: 'POST',
      url: '/management/v1/workspace/',
      headers: ws.management,
      payload: { name: 'x', slug: 'Bad Slug!' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().detail).toHaveProperty('slug');
  });

  it('paginates with limit and offset and rejects out-of-range values', async () => {
    const ws = await createWorkspaceFixture(t());
    const page = await t().app.inject({
      method: 'GET',
      url: '/management/v1/workspace/?limit=1&offset=0',
      headers: ws.management,
    });
    expect(page.json().meta).toMatchObject({ limit: 1, offset: 0 });
    expect(page.json().results).toHaveLength(1);
    for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'limit=abc']) {
      const response = await t().app.inject({
        method: 'GET',
        url: `/management/v1/workspace/?${query}`,
        headers: ws.management,
      });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error_code).toBe('validation_error');
    }
  });
});
