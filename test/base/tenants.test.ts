import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

describe('tenants', () => {
  const t = useTestApp();
  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('creates a tenant (201) and merges properties at the first level on update', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await call(ws, 'POST', '/v1/tenant/acme/', {
      tenant_name: 'Acme',
      logo: 'https://acme.example/logo.png',
      timezone: 'America/New_York',
      blocked_channels: ['sms'],
      primary_color: '#ff0000',
      social_links: { website: 'https://acme.example' },
      properties: { plan: 'gold', address: { city: 'Paris' } },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      tenant_id: 'acme',
      tenant_name: 'Acme',
      logo: 'https://acme.example/logo.png',
      timezone: 'America/New_York',
      blocked_channels: ['sms'],
      embedded_preference_url: null,
      hosted_preference_domain: null,
      primary_color: '#ff0000',
      secondary_color: null,
      tertiary_color: null,
      social_links: { website: 'https://acme.example' },
      properties: { plan: 'gold', address: { city: 'Paris' } },
      created_at: expect.any(String),
      updated_at: created.json().created_at,
    });
    const updated = await call(ws, 'POST', '/v1/tenant/acme/', {
      primary_color: null,
      secondary_color: '#abc',
      properties: { address: { zip: '75001' }, seats: 5 },
    });
    expect(updated.statusCode).toBe(201);
    expect(updated.json()).toMatchObject({
      tenant_name: 'Acme',
      logo: 'https://acme.example/logo.png',
      primary_color: null,
      secondary_color: '#abc',
      properties: { plan: 'gold', address: { zip: '75001' }, seats: 5 },
      created_at: created.json().created_at,
    });
    expect(Date.parse(updated.json().updated_at)).toBeGreaterThan(Date.parse(created.json().updated_at));
    expect((await call(ws, 'GET', '/v1/tenant/acme/')).json()).toEqual(updated.json());
    expect((await call(ws, 'POST', '/v1/tenant/bare/', {})).json().tenant_name).toBe('bare');
  });

  it('rejects bad fields with the full 400 shape', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const payload of [
      { primary_color: 'red' },
      { blocked_channels: ['fax'] },
      { timezone: 'Nowhere/Land' },
      { unknown_field: 1 },
      { social_links: { myspace: 'x' } },
    ]) {
      const response = await call(ws, 'POST', '/v1/tenant/t1/', payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(response.json()).toMatchObject({ code: 400, error_code: 'validation_error', type: 'ValidationError' });
    }
    expect((await call(ws, 'GET', '/v1/tenant/t1/')).statusCode).toBe(404);
  });

  it('answers an unknown tenant with the full 404 naming it', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const method of ['GET', 'DELETE'] as const) {
      const response = await call(ws, method, '/v1/tenant/nope/');
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        code: 404,
        error_code: 'not_found',
        type: 'NotFound',
        message: 'No tenant found for tenant_id nope',
        detail: null,
      });
    }
  });

  it('lists tenants with offset pagination, default first', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const id of ['t1', 't2', 't3']) await call(ws, 'POST', `/v1/tenant/${id}/`, {});
    const all = (await call(ws, 'GET', '/v1/tenant/')).json();
    expect(all.meta).toEqual({ count: 4, limit: 20, offset: 0 });
    expect(all.results.map((r: { tenant_id: string }) => r.tenant_id)).toEqual(['default', 't1', 't2', 't3']);
    const page = (await call(ws, 'GET', '/v1/tenant/?limit=2&offset=1')).json();
    expect(page.meta).toEqual({ count: 4, limit: 2, offset: 1 });
    expect(page.results.map((r: { tenant_id: string }) => r.tenant_id)).toEqual(['t1', 't2']);
    expect((await call(ws, 'GET', '/v1/tenant/?limit=1001')).statusCode).toBe(400);
  });

  it('deletes a tenant (204) but never the default one (400)', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/tenant/gone/', {});
    const deleted = await call(ws, 'DELETE', '/v1/tenant/gone/');
    expect(deleted.statusCode).toBe(204);
    expect((await call(ws, 'GET', '/v1/tenant/gone/')).statusCode).toBe(404);
    const refused = await call(ws, 'DELETE', '/v1/tenant/default/');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 400, message: "tenant 'default' cannot be deleted" });
    expect((await call(ws, 'GET', '/v1/tenant/default/')).statusCode).toBe(200);
  });
});
