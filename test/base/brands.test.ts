import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { sdkFor } from '../support/sdk.js';

describe('brands: the tenants under their older name', () => {
  const t = useTestApp();

  it('a brand written through /v1/brand/ is the tenant of the same id, and the other way round', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await t().app.inject({
      method: 'POST',
      url: '/v1/brand/acme/',
      headers: ws.base,
      payload: { brand_name: 'Acme', primary_color: '#ff0000', properties: { tier: 'gold' } },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      brand_id: 'acme',
      brand_name: 'Acme',
      tenant_id: 'acme',
      tenant_name: 'Acme',
      primary_color: '#ff0000',
      properties: { tier: 'gold' },
    });
    const tenant = await t().app.inject({ method: 'GET', url: '/v1/tenant/acme/', headers: ws.base });
    expect(tenant.json()).toMatchObject({ tenant_name: 'Acme', primary_color: '#ff0000' });

    await t().app.inject({
      method: 'POST',
      url: '/v1/tenant/acme/',
      headers: ws.base,
      payload: { tenant_name: 'ACME' },
    });
    const brand = await t().app.inject({ method: 'GET', url: '/v1/brand/acme/', headers: ws.base });
    expect(brand.json()).toMatchObject({ brand_name: 'ACME', tenant_name: 'ACME' });

    const missing = await t().app.inject({ method: 'GET', url: '/v1/brand/nope/', headers: ws.base });
    expect([missing.statusCode, missing.json().message]).toEqual([404, 'No brand found for brand_id nope']);
    const bad = await t().app.inject({
      method: 'POST',
      url: '/v1/brand/acme/',
      headers: ws.base,
      payload: { timezone: 'Mars/Olympus' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('answers the SDK brands methods', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    const upserted = await sdk.brands.upsert('sdk-brand', {
      brand_name: 'SDK brand',
      logo: 'https://example.com/l.png',
    });
    expect(upserted).toMatchObject({
      brand_id: 'sdk-brand',
      brand_name: 'SDK brand',
      logo: 'https://example.com/l.png',
    });
    expect(await sdk.brands.get('sdk-brand')).toEqual(upserted);
    const page = await sdk.brands.list({ limit: 1, offset: 1 });
    expect(page.meta).toEqual({ count: 2, limit: 1, offset: 1 });
    expect(page.results).toEqual([upserted]);
    expect((await sdk.brands.list()).results.map((b: { brand_id: string }) => b.brand_id)).toEqual([
      'default',
      'sdk-brand',
    ]);
    await expect(sdk.brands.get('nope')).rejects.toThrow('No brand found for brand_id nope');
  });
});
