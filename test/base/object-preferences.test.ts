import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { channelsAt, preferenceWorkspace, restrictions } from '../support/preferences.js';

describe("objects' preferences, per tenant, decided by the same rule as users'", () => {
  const t = useTestApp();
  const base = '/v1/object/teams/core';

  it('reads the live defaults for an object without choices, and 404s for unknown objects, tenants and categories', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', `${base}/`, {});
    const full = await call.inject('GET', `${base}/preference/`);
    expect(full.statusCode).toBe(200);
    expect(full.json().sections.map((s: { name: string }) => s.name)).toEqual(['Account', 'Marketing']);
    expect(full.json().channel_preferences).toEqual(restrictions());
    expect((await call.inject('GET', `${base}/preference/category/newsletter/`)).json()).toMatchObject({
      preference: 'opt_out',
      original_preference: null,
      channels: channelsAt('opt_out'),
    });
    const page = (await call.inject('GET', `${base}/preference/category/?limit=2`)).json();
    expect(page.meta).toEqual({ count: 4, limit: 2, offset: 0 });
    expect(page.results.map((c: { category: string }) => c.category)).toEqual(['order-updates', 'security-alerts']);
    expect((await call.inject('GET', `${base}/preference/channel_preference/`)).json()).toEqual({
      channel_preferences: restrictions(),
    });

    for (const [url, message] of [
      ['/v1/object/teams/ghost/preference/', "object 'teams/ghost' not found"],
      [`${base}/preference/?tenant_id=nope`, "tenant 'nope' not found"],
      [`${base}/preference/category/nope/`, "category 'nope' not found"],
    ]) {
      const answer = await call.inject('GET', url!);
      expect([answer.statusCode, answer.json()], url).toEqual([404, { code: 404, message }]);
    }
  });

  it('writes choices per tenant through each PATCH, creating the object, and the tenant overlay applies', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/tenant/acme/', {});
    const category = await call.inject('PATCH', `${base}/preference/category/offers/?tenant_id=acme`, {
      preference: 'opt_out',
      opt_in_channels: ['slack'],
    });
    expect(category.statusCode).toBe(202);
    expect(category.json()).toMatchObject({
      original_preference: 'opt_out',
      channels: channelsAt('opt_out', { slack: 'opt_in' }),
    });
    expect((await call.inject('GET', `${base}/`)).statusCode).toBe(200);
    // Another tenant is untouched.
    expect((await call.inject('GET', `${base}/preference/category/offers/`)).json().preference).toBe('opt_in');

    const channels = await call.inject('PATCH', `${base}/preference/channel_preference/?tenant_id=acme`, {
      channel_preferences: [{ channel: 'slack', is_restricted: true }],
    });
    expect([channels.statusCode, channels.json()]).toEqual([202, { channel_preferences: restrictions(['slack']) }]);
    expect((await call.inject('GET', `${base}/preference/category/offers/?tenant_id=acme`)).json().channels).toEqual(
      channelsAt('opt_out'),
    );

    const whole = await call.inject('PATCH', `${base}/preference/?tenant_id=acme`, {
      channel_preferences: [{ channel: 'slack', is_restricted: false }],
      categories: [{ category: 'newsletter', preference: 'opt_in' }],
    });
    expect(whole.statusCode).toBe(200);
    expect(whole.json()).toEqual((await call.inject('GET', `${base}/preference/?tenant_id=acme`)).json());
    const offers = whole.json().sections[1].subcategories[1];
    expect(offers).toMatchObject({ category: 'offers', channels: channelsAt('opt_out', { slack: 'opt_in' }) });

    // The tenant blocking slack for offers wins over the object's opt-in.
    await call.inject('PATCH', '/v1/tenant/acme/preference/category/offers/', { blocked_channels: ['slack'] });
    expect((await call.inject('GET', `${base}/preference/category/offers/?tenant_id=acme`)).json().channels).toEqual(
      channelsAt('opt_out'),
    );

    const bad = await call.inject('PATCH', `${base}/preference/category/nope/`, { preference: 'opt_in' });
    expect([bad.statusCode, bad.json()]).toEqual([404, { code: 404, message: "category 'nope' not found" }]);
    const badChannel = await call.inject('PATCH', `${base}/preference/channel_preference/`, {
      channel_preferences: [{ channel: 'pager', is_restricted: true }],
    });
    expect(badChannel.statusCode).toBe(400);
  });

  it('deleting the object deletes its preferences', async () => {
    const { ws, call } = await preferenceWorkspace(t);
    await call.inject('PATCH', '/v1/object/teams/gone/preference/', {
      channel_preferences: [{ channel: 'sms', is_restricted: true }],
      categories: [{ category: 'offers', preference: 'opt_out' }],
    });
    await call.inject('DELETE', '/v1/object/teams/gone/');
    for (const table of ['object_channel_preferences', 'object_category_preferences'] as const) {
      const rows = await t().db.selectFrom(table).selectAll().where('workspace_id', '=', ws.workspaceId).execute();
      expect(rows, table).toEqual([]);
    }
  });
});
