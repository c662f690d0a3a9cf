import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { channelsAt, preferenceWorkspace } from '../support/preferences.js';

describe("tenants' own category defaults, and what users see of them", () => {
  const t = useTestApp();

  it('shows every category with no override until the tenant sets one, in every read', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/tenant/acme/', {});
    const full = await call.inject('GET', '/v1/tenant/acme/preference/');
    expect(full.statusCode).toBe(200);
    const roots = full.json().root_categories;
    expect(roots.map((r: { root_category: string }) => r.root_category)).toEqual([
      'system',
      'transactional',
      'promotional',
    ]);
    const orderUpdates = roots[1].sections[0].categories[0];
    expect(orderUpdates).toEqual({
      name: 'Name of order-updates',
      category: 'order-updates',
      description: 'Where your order is',
      tags: null,
      effective_tags: [],
      root_category: 'transactional',
      default_preference: 'opt_in',
      default_mandatory_channels: null,
      default_opt_in_channels: null,
      enabled_for_tenant: true,
      visible_to_subscriber: true,
      preference: null,
      mandatory_channels: null,
      opt_in_channels: null,
      blocked_channels: null,
      updated_at: null,
    });
    const page = (await call.inject('GET', '/v1/tenant/acme/preference/category/?limit=2&offset=1')).json();
    expect(page.meta).toEqual({ count: 4, limit: 2, offset: 1 });
    expect(page.results.map((c: { category: string }) => c.category)).toEqual(['security-alerts', 'newsletter']);
    // A limit the query coercion lets through as a number (Infinity) is refused for every route at once.
    const infinite = await call.inject('GET', '/v1/tenant/acme/preference/category/?limit=Infinity');
    expect([infinite.statusCode, infinite.json()]).toEqual([
      400,
      { code: 400, message: 'limit: must be a finite number' },
    ]);
    const older = (await call.inject('GET', '/v1/tenant/acme/category/')).json();
    expect(older.results.map((c: { category: string }) => c.category)).toEqual([
      'order-updates',
      'security-alerts',
      'newsletter',
      'offers',
    ]);
    expect((await call.inject('GET', '/v1/tenant/acme/preference/category/order-updates/')).json()).toEqual(
      orderUpdates,
    );
  });

  it("a tenant's default replaces the workspace's for its users only; their own choices still win", async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/tenant/acme/', {});
    await call.inject('POST', '/v1/user/ada/', {});
    const set = await call.inject('PATCH', '/v1/tenant/acme/preference/category/newsletter/', {
      preference: 'opt_in',
      visible_to_subscriber: false,
    });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      category: 'newsletter',
      default_preference: 'opt_out',
      preference: 'opt_in',
      visible_to_subscriber: false,
      blocked_channels: null,
      updated_at: expect.any(String),
    });
    // In acme, newsletter is now opted in by default; in the default tenant it is still opted out.
    expect((await call.category('ada', 'newsletter', 'acme')).json()).toMatchObject({
      original_preference: null,
      preference: 'opt_in',
      channels: channelsAt('opt_in'),
    });
    expect((await call.category('ada', 'newsletter')).json()).toMatchObject({ preference: 'opt_out' });
    expect((await call.evaluate('ada', 'newsletter', 'email', 'acme')).json()).toMatchObject({
      allowed: true,
      reason: 'default_opt_in',
    });
    await call.setCategory('ada', 'newsletter', { preference: 'opt_out' }, 'acme');
    expect((await call.evaluate('ada', 'newsletter', 'email', 'acme')).json()).toMatchObject({
      allowed: false,
      reason: 'user_opt_out',
    });

    // cant_unsubscribe in a tenant locks the category for its users, whatever they chose.
    const locked = await call.inject('PATCH', '/v1/tenant/acme/category/newsletter/', {
      preference: 'cant_unsubscribe',
    });
    expect(locked.statusCode).toBe(202);
    expect(locked.json()).toMatchObject({ preference: 'cant_unsubscribe', visible_to_subscriber: false });
    expect((await call.category('ada', 'newsletter', 'acme')).json()).toMatchObject({
      preference: 'opt_in',
      is_editable: false,
    });
    // null hands the category back to the workspace default.
    await call.inject('PATCH', '/v1/tenant/acme/preference/category/newsletter/', { preference: null });
    expect((await call.evaluate('ada', 'newsletter', 'email', 'acme')).json()).toMatchObject({
      reason: 'user_opt_out',
    });
  });

  it('channels a tenant blocks are denied before anything else, for a category or for all (its blocked_channels)', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/tenant/acme/', {});
    await call.inject('POST', '/v1/user/ada/', {});
    await call.inject('PATCH', '/v1/tenant/acme/preference/category/security-alerts/', { blocked_channels: ['sms'] });
    expect((await call.evaluate('ada', 'security-alerts', 'sms', 'acme')).json()).toEqual({
      allowed: false,
      reason: 'tenant_channel_blocked',
      message: 'the tenant blocks sms for this category: nothing is sent on it',
    });
    expect((await call.evaluate('ada', 'security-alerts', 'email', 'acme')).json()).toMatchObject({
      reason: 'cant_unsubscribe',
    });
    expect((await call.category('ada', 'security-alerts', 'acme')).json().channels).toEqual(
      channelsAt('opt_in', { sms: 'opt_out' }, false),
    );
    await call.inject('POST', '/v1/tenant/acme/', { blocked_channels: ['whatsapp'] });
    expect((await call.evaluate('ada', 'system', 'whatsapp', 'acme')).json()).toMatchObject({
      allowed: false,
      reason: 'tenant_channel_blocked',
    });
    expect((await call.evaluate('ada', 'offers', 'whatsapp', 'acme')).json()).toMatchObject({ allowed: false });
    expect((await call.evaluate('ada', 'offers', 'whatsapp')).json()).toMatchObject({ allowed: true });
  });

  it('keeps what a PATCH does not name, and refuses bad values and unknown tenants or categories', async () => {
    const { ws, call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/tenant/acme/', {});
    const url = '/v1/tenant/acme/preference/category/offers/';
    await call.inject('PATCH', url, { preference: 'opt_out', opt_in_channels: ['email', 'email'] });
    const second = await call.inject('PATCH', url, { mandatory_channels: ['inbox'] });
    expect(second.json()).toMatchObject({
      preference: 'opt_out',
      opt_in_channels: ['email'],
      mandatory_channels: ['inbox'],
    });
    const badPreference = await call.inject('PATCH', url, { preference: 'maybe' });
    expect([badPreference.statusCode, badPreference.json()]).toEqual([
      400,
      {
        code: 400,
        message: "preference: 'maybe' is not a preference; expected opt_in, opt_out, cant_unsubscribe",
      },
    ]);
    const badChannel = await call.inject('PATCH', url, { blocked_channels: ['pager'] });
    expect(badChannel.statusCode).toBe(400);
    expect(badChannel.json().message).toMatch(/^blocked_channels\[0\]: 'pager' is not a channel/);
    for (const [method, path] of [
      ['GET', '/v1/tenant/nope/preference/'],
      ['GET', '/v1/tenant/nope/category/'],
      ['PATCH', '/v1/tenant/nope/preference/category/offers/'],
    ] as const) {
      const answer = await call.inject(method, path, method === 'PATCH' ? {} : undefined);
      expect([answer.statusCode, answer.json()], path).toEqual([
        404,
        { code: 404, message: "tenant 'nope' not found" },
      ]);
    }
    const unknown = await call.inject('GET', '/v1/tenant/acme/preference/category/nope/');
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { code: 404, message: "category 'nope' not found" }]);
    // Deleting the tenant deletes its overrides.
    await call.inject('DELETE', '/v1/tenant/acme/');
    const rows = await t()
      .db.selectFrom('tenant_category_preferences')
      .selectAll()
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(rows).toEqual([]);
  });
});

describe("a user's whole preference at once", () => {
  const t = useTestApp();

  it('PATCH /v1/user/{id}/preference/ sets channels and categories and answers the full preference', async () => {
    const { call } = await preferenceWorkspace(t);
    const answer = await call.inject('PATCH', '/v1/user/new-user/preference/', {
      channel_preferences: [{ channel: 'sms', is_restricted: true }],
      categories: [{ category: 'newsletter', preference: 'opt_in', opt_out_channels: ['email'] }],
    });
    expect(answer.statusCode).toBe(200);
    const body = answer.json();
    expect(body).toEqual((await call.full('new-user')).json());
    const newsletter = body.sections[1].subcategories[0];
    expect(newsletter).toMatchObject({
      original_preference: 'opt_in',
      channels: channelsAt('opt_in', { email: 'opt_out', sms: 'opt_out' }),
    });
    const bad = await call.inject('PATCH', '/v1/user/new-user/preference/', { categories: [{ category: 'nope' }] });
    expect([bad.statusCode, bad.json().message]).toEqual([
      400,
      "categories[0].category: category 'nope' not found in the live preference categories",
    ]);
  });

  it('GET /v1/user/{id}/preference/category/ pages every category', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/user/ada/', {});
    const page = await call.inject('GET', '/v1/user/ada/preference/category/?limit=3&offset=1');
    expect(page.statusCode).toBe(200);
    expect(page.json().meta).toEqual({ count: 4, limit: 3, offset: 1 });
    expect(page.json().results.map((c: { category: string }) => c.category)).toEqual([
      'security-alerts',
      'newsletter',
      'offers',
    ]);
    expect(page.json().results[2]).toEqual((await call.category('ada', 'offers')).json());
    const ghost = await call.inject('GET', '/v1/user/ghost/preference/category/');
    expect([ghost.statusCode, ghost.json()]).toEqual([
      404,
      { code: 404, message: "user [distinct_id: 'ghost'] not found" },
    ]);
  });
});
