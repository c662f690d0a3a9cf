import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { callersOf } from '../support/callers.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';
import { channelsAt, DEFINITION, preferenceWorkspace, restrictions } from '../support/preferences.js';

describe('GET /v1/user/{id}/preference/ and the per-user reads', () => {
  const t = useTestApp();

  it('shows a user without choices the live defaults: sections, every channel, nothing restricted', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/user/ada/', {});
    const response = await call.full('ada');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(
      body.sections.map((s: { name: string; subcategories: { category: string }[] }) => [
        s.name,
        s.subcategories.map((c) => c.category),
      ]),
    ).toEqual([
      ['Account', ['order-updates', 'security-alerts']],
      ['Marketing', ['newsletter', 'offers']],
    ]);
    expect(body.sections[0].subcategories[0]).toEqual({
      name: 'Name of order-updates',
      category: 'order-updates',
      description: 'Where your order is',
      original_preference: null,
      preference: 'opt_in',
      is_editable: true,
      channels: channelsAt('opt_in'),
      opt_in_channels: [],
      opt_out_channels: [],
      digest_schedule: null,
      properties: [],
    });
    expect(body.sections[1].subcategories[0]).toMatchObject({
      category: 'newsletter',
      preference: 'opt_out',
      channels: channelsAt('opt_out'),
    });
    expect(body.sections[0].subcategories[1]).toMatchObject({
      category: 'security-alerts',
      preference: 'opt_in',
      is_editable: false,
      channels: channelsAt('opt_in', {}, false),
    });
    expect(body.channel_preferences).toEqual(restrictions());
    expect((await call.channels('ada')).json()).toEqual({ channel_preferences: restrictions() });
    expect((await call.category('ada', 'offers')).json()).toEqual(body.sections[1].subcategories[1]);
  });

  it('answers unknown users, tenants and categories with short 404s', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/user/ada/', {});
    const ghost = { code: 404, message: "user [distinct_id: 'ghost'] not found" };
    expect((await call.full('ghost')).json()).toEqual(ghost);
    expect((await call.channels('ghost')).json()).toEqual(ghost);
    expect((await call.category('ghost', 'offers')).json()).toEqual(ghost);
    expect((await call.evaluate('ghost', 'offers', 'email')).json()).toEqual(ghost);
    const noTenant = { code: 404, message: "tenant 'nope' not found" };
    expect((await call.full('ada', 'nope')).json()).toEqual(noTenant);
    expect((await call.channels('ada', 'nope')).json()).toEqual(noTenant);
    expect((await call.setCategory('ada', 'offers', { preference: 'opt_out' }, 'nope')).json()).toEqual(noTenant);
    expect(
      (
        await call.setChannels('ada', { channel_preferences: [{ channel: 'sms', is_restricted: true }] }, 'nope')
      ).json(),
    ).toEqual(noTenant);
    expect((await call.evaluate('ada', 'offers', 'email', 'nope')).json()).toEqual(noTenant);
    const noCategory = { code: 404, message: "category 'nope' not found" };
    for (const response of [
      await call.category('ada', 'nope'),
      await call.setCategory('ada', 'nope', { preference: 'opt_in' }),
      await call.evaluate('ada', 'nope', 'email'),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual(noCategory);
    }
    // A root category has no user preference to read or write.
    expect((await call.category('ada', 'system')).json()).toEqual({
      code: 404,
      message: "category 'system' not found",
    });
  });
});

describe('PATCH category and channel preferences of one user', () => {
  const t = useTestApp();

  it('sets a category choice (202 CategoryPref), creating an unknown user, and keeps fields it does not name', async () => {
    const { call } = await preferenceWorkspace(t);
    const set = await call.setCategory('new-user', 'offers', {
      preference: 'opt_in',
      opt_out_channels: ['email', 'sms'],
      digest_schedule: { time: '09:00', weekdays: ['mo'] },
    });
    expect(set.statusCode).toBe(202);
    expect(set.json()).toMatchObject({
      category: 'offers',
      original_preference: 'opt_in',
      preference: 'opt_in',
      channels: channelsAt('opt_in', { email: 'opt_out', sms: 'opt_out' }),
      opt_out_channels: ['email', 'sms'],
      digest_schedule: { time: '09:00', weekdays: ['mo'] },
    });
    expect((await call.inject('GET', '/v1/user/new-user/')).statusCode).toBe(200);
    const again = await call.setCategory('new-user', 'offers', { preference: 'opt_out', opt_in_channels: ['inbox'] });
    expect(again.json()).toMatchObject({
      original_preference: 'opt_out',
      preference: 'opt_out',
      channels: channelsAt('opt_out', { inbox: 'opt_in' }),
      opt_in_channels: ['inbox'],
      opt_out_channels: ['email', 'sms'],
      digest_schedule: { time: '09:00', weekdays: ['mo'] },
    });
    expect((await call.category('new-user', 'offers')).json()).toEqual(again.json());
  });

  it('refuses preferences other than opt_in/opt_out and unknown channels, naming them, in the short shape', async () => {
    const { call } = await preferenceWorkspace(t);
    const cases: [unknown, string][] = [
      [
        { preference: 'cant_unsubscribe' },
        "preference: 'cant_unsubscribe' is not a preference; expected opt_in or opt_out",
      ],
      [{ preference: 'maybe' }, "preference: 'maybe' is not a preference; expected opt_in or opt_out"],
      [
        { preference: 'opt_in', opt_out_channels: ['email', 'fax'] },
        "opt_out_channels[1]: 'fax' is not a channel; expected one of email, sms, whatsapp, androidpush, iospush, webpush, inbox, slack, ms_teams",
      ],
      [
        { preference: 'opt_in', opt_out_channels: ['email'], opt_in_channels: ['email'] },
        "opt_in_channels: 'email' is also in opt_out_channels",
      ],
      [{}, 'preference is required'],
      [{ preference: 'opt_in', colour: 'red' }, 'colour is not allowed'],
    ];
    for (const [body, message] of cases) {
      const response = await call.setCategory('ada', 'offers', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toEqual({ code: 400, message });
    }
    const channel = await call.setChannels('ada', { channel_preferences: [{ channel: 'pager', is_restricted: true }] });
    expect(channel.json()).toEqual({
      code: 400,
      message:
        "channel_preferences[0].channel: 'pager' is not a channel; expected one of email, sms, whatsapp, androidpush, iospush, webpush, inbox, slack, ms_teams",
    });
    // Nothing was written by the refused requests.
    expect((await call.inject('GET', '/v1/user/ada/')).statusCode).toBe(404);
  });

  it('keeps cant_unsubscribe categories opted in: the choice is recorded, never effective', async () => {
    const { call } = await preferenceWorkspace(t);
    const set = await call.setCategory('ada', 'security-alerts', {
      preference: 'opt_out',
      opt_out_channels: ['email'],
    });
    expect(set.statusCode).toBe(202);
    expect(set.json()).toMatchObject({
      original_preference: 'opt_out',
      preference: 'opt_in',
      is_editable: false,
      channels: channelsAt('opt_in', {}, false),
      opt_out_channels: ['email'],
    });
    await call.setChannels('ada', { channel_preferences: [{ channel: 'email', is_restricted: true }] });
    expect((await call.evaluate('ada', 'security-alerts', 'email')).json()).toEqual({
      allowed: true,
      reason: 'cant_unsubscribe',
      message: "'security-alerts' cannot be unsubscribed: it is sent whatever the user chose",
    });
    expect((await call.category('ada', 'security-alerts')).json().channels).toEqual(channelsAt('opt_in', {}, false));
  });

  it('turns a restricted channel off for every category except cant_unsubscribe ones, and back on when lifted', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.setCategory('ada', 'newsletter', { preference: 'opt_in' });
    const restricted = await call.setChannels('ada', {
      channel_preferences: [
        { channel: 'sms', is_restricted: true },
        { channel: 'email', is_restricted: true },
      ],
    });
    expect(restricted.statusCode).toBe(202);
    expect(restricted.json()).toEqual({ channel_preferences: restrictions(['email', 'sms']) });
    const full = (await call.full('ada')).json();
    const channelsOf = (slug: string) =>
      full.sections
        .flatMap((s: { subcategories: { category: string }[] }) => s.subcategories)
        .find((c: { category: string }) => c.category === slug).channels;
    expect(channelsOf('newsletter')).toEqual(channelsAt('opt_in', { email: 'opt_out', sms: 'opt_out' }));
    expect(channelsOf('order-updates')).toEqual(channelsAt('opt_in', { email: 'opt_out', sms: 'opt_out' }));
    expect(channelsOf('security-alerts')).toEqual(channelsAt('opt_in', {}, false));
    expect((await call.evaluate('ada', 'newsletter', 'sms')).json()).toMatchObject({
      allowed: false,
      reason: 'channel_restricted',
    });
    // Channels a request does not name are kept.
    const lifted = await call.setChannels('ada', { channel_preferences: [{ channel: 'sms', is_restricted: false }] });
    expect(lifted.json()).toEqual({ channel_preferences: restrictions(['email']) });
    expect((await call.evaluate('ada', 'newsletter', 'sms')).json()).toMatchObject({
      allowed: true,
      reason: 'user_opt_in',
    });
  });
});

describe('the tenant dimension', () => {
  const t = useTestApp();

  it('keeps a choice under tenant A out of tenant B and the default tenant', async () => {
    const { call } = await preferenceWorkspace(t);
    for (const tenant of ['tenant-a', 'tenant-b'])
      expect((await call.inject('POST', `/v1/tenant/${tenant}/`, {})).statusCode).toBe(201);
    expect(
      (
        await call.bulk(
          {
            distinct_ids: ['ada'],
            categories: [{ category: 'offers', preference: 'opt_out' }],
            channel_preferences: [{ channel: 'inbox', is_restricted: true }],
          },
          'tenant-a',
        )
      ).statusCode,
    ).toBe(202);
    await call.setCategory('ada', 'newsletter', { preference: 'opt_in' }, 'tenant-b');

    expect(await call.preferenceOf('ada', 'offers', 'tenant-a')).toBe('opt_out');
    expect(await call.preferenceOf('ada', 'offers', 'tenant-b')).toBe('opt_in');
    expect(await call.preferenceOf('ada', 'offers')).toBe('opt_in');
    expect(await call.preferenceOf('ada', 'offers', 'default')).toBe('opt_in');
    expect(await call.preferenceOf('ada', 'newsletter', 'tenant-b')).toBe('opt_in');
    expect(await call.preferenceOf('ada', 'newsletter', 'tenant-a')).toBe('opt_out');
    expect(await call.preferenceOf('ada', 'newsletter')).toBe('opt_out');
    expect((await call.channels('ada', 'tenant-a')).json()).toEqual({ channel_preferences: restrictions(['inbox']) });
    expect((await call.channels('ada', 'tenant-b')).json()).toEqual({ channel_preferences: restrictions() });
    expect((await call.channels('ada')).json()).toEqual({ channel_preferences: restrictions() });
    expect((await call.evaluate('ada', 'order-updates', 'inbox', 'tenant-a')).json()).toMatchObject({
      allowed: false,
      reason: 'channel_restricted',
    });
    expect((await call.evaluate('ada', 'order-updates', 'inbox')).json()).toMatchObject({
      allowed: true,
      reason: 'default_opt_in',
    });

    // Deleting a tenant removes the preferences recorded under it, and only those.
    expect((await call.inject('DELETE', '/v1/tenant/tenant-a/')).statusCode).toBe(204);
    const left = await t()
      .db.selectFrom('user_category_preferences')
      .select(['tenant_id', 'category'])
      .where('tenant_id', 'in', ['tenant-a', 'tenant-b'])
      .execute();
    expect(left.filter((row) => row.tenant_id === 'tenant-a')).toEqual([]);
    expect((await call.inject('POST', '/v1/tenant/tenant-a/', {})).statusCode).toBe(201);
    expect(await call.preferenceOf('ada', 'offers', 'tenant-a')).toBe('opt_in');
    expect(await call.preferenceOf('ada', 'newsletter', 'tenant-b')).toBe('opt_in');
  });
});

describe('GET /v1/user/{id}/preference/evaluate/', () => {
  const t = useTestApp();

  it('names the rule that decided, for every rule', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/user/ada/', {});
    const verdict = async (category: string, channel: string) => {
      const response = await call.evaluate('ada', category, channel);
      expect(response.statusCode).toBe(200);
      const { allowed, reason } = response.json();
      return [allowed, reason];
    };
    expect(await verdict('order-updates', 'email')).toEqual([true, 'default_opt_in']);
    expect(await verdict('newsletter', 'email')).toEqual([false, 'default_opt_out']);
    expect(await verdict('transactional', 'email')).toEqual([true, 'root_category']);
    await call.bulk({
      distinct_ids: ['ada'],
      categories: [
        { category: 'order-updates', preference: 'opt_out', opt_in_channels: ['inbox'] },
        { category: 'offers', preference: 'opt_in', opt_out_channels: ['sms'] },
        { category: 'newsletter', preference: 'opt_in' },
        { category: 'security-alerts', preference: 'opt_out' },
      ],
      channel_preferences: [{ channel: 'slack', is_restricted: true }],
    });
    expect(await verdict('order-updates', 'email')).toEqual([false, 'user_opt_out']);
    expect(await verdict('order-updates', 'inbox')).toEqual([true, 'category_channel_opt_in']);
    expect(await verdict('offers', 'sms')).toEqual([false, 'category_channel_opt_out']);
    expect(await verdict('newsletter', 'email')).toEqual([true, 'user_opt_in']);
    expect(await verdict('newsletter', 'slack')).toEqual([false, 'channel_restricted']);
    expect(await verdict('security-alerts', 'slack')).toEqual([true, 'cant_unsubscribe']);
    expect(await verdict('system', 'slack')).toEqual([true, 'root_category']);
    // The reads show what evaluate decides.
    const orders = (await call.category('ada', 'order-updates')).json();
    expect(orders.channels).toEqual(channelsAt('opt_out', { inbox: 'opt_in' }));
    const bad = await call.evaluate('ada', 'offers', 'pager');
    expect(bad.json()).toEqual({
      code: 400,
      message:
        "channel: 'pager' is not a channel; expected one of email, sms, whatsapp, androidpush, iospush, webpush, inbox, slack, ms_teams",
    });
    const missing = await call.inject('GET', '/v1/user/ada/preference/evaluate/?category=offers');
    expect(missing.json()).toEqual({ code: 400, message: 'channel is required' });
  });
});

describe('preferences follow the live definition, users and workspaces', () => {
  const t = useTestApp();

  it('reads categories from the live definition: drafts are unknown, removed categories disappear', async () => {
    const { ws, call } = await preferenceWorkspace(t);
    const config = configClient(t, ws);
    await call.setCategory('ada', 'offers', { preference: 'opt_out' });
    const draft = structuredClone(DEFINITION);
    draft.root_categories[2]!.sections[0]!.categories = [
      draft.root_categories[2]!.sections[0]!.categories[0]!,
      { category: 'drafted', name: 'Drafted', default_preference: 'opt_in' },
    ];
    expect((await config.postCategories(draft)).statusCode).toBe(200);
    const refused = await call.bulk({
      distinct_ids: ['ada'],
      categories: [{ category: 'drafted', preference: 'opt_in' }],
    });
    expect(refused.json()).toEqual({
      code: 400,
      message: "categories[0].category: category 'drafted' not found in the live preference categories",
    });
    await config.commitCategories();
    expect(
      (await call.bulk({ distinct_ids: ['ada'], categories: [{ category: 'drafted', preference: 'opt_out' }] }))
        .statusCode,
    ).toBe(202);
    const sections = (await call.full('ada')).json().sections;
    expect(sections[1].subcategories.map((c: { category: string }) => c.category)).toEqual(['newsletter', 'drafted']);
    expect((await call.category('ada', 'offers')).statusCode).toBe(404);
    expect(await call.preferenceOf('ada', 'drafted')).toBe('opt_out');
  });

  it('deleting a user deletes its preferences; a user of the same id starts from the defaults', async () => {
    const { ws, call } = await preferenceWorkspace(t);
    await call.bulk({
      distinct_ids: ['ada', 'bob'],
      categories: [{ category: 'offers', preference: 'opt_out' }],
      channel_preferences: [{ channel: 'sms', is_restricted: true }],
    });
    const user = await t()
      .db.selectFrom('users')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .where('distinct_id', '=', 'ada')
      .executeTakeFirstOrThrow();
    expect((await call.inject('DELETE', '/v1/user/ada/')).statusCode).toBe(204);
    for (const table of ['user_category_preferences', 'user_channel_preferences'] as const) {
      expect(await t().db.selectFrom(table).select('user_id').where('user_id', '=', user.id).execute()).toEqual([]);
    }
    await call.inject('POST', '/v1/user/ada/', {});
    expect(await call.preferenceOf('ada', 'offers')).toBe('opt_in');
    expect((await call.channels('ada')).json()).toEqual({ channel_preferences: restrictions() });
    expect(await call.preferenceOf('bob', 'offers')).toBe('opt_out');
  });

  it("never reads or changes another workspace's preferences, and answers a signed workspace key like an API key", async () => {
    const { call: a } = await preferenceWorkspace(t);
    const { ws: wsB, call: b } = await preferenceWorkspace(t);
    await b.bulk({ distinct_ids: ['shared'], categories: [{ category: 'offers', preference: 'opt_out' }] });
    expect(
      (
        await a.bulk({
          distinct_ids: ['shared'],
          categories: [{ category: 'offers', preference: 'opt_in', opt_out_channels: ['sms'] }],
        })
      ).statusCode,
    ).toBe(202);
    expect((await b.category('shared', 'offers')).json()).toMatchObject({
      preference: 'opt_out',
      opt_out_channels: [],
    });
    expect((await a.category('shared', 'offers')).json()).toMatchObject({
      preference: 'opt_in',
      opt_out_channels: ['sms'],
    });
    // A workspace with no categories committed knows none of them.
    const bare = callersOf(t, await createWorkspaceFixture(t()))['api key'];
    expect(
      (
        await bare('PATCH', '/v1/bulk/user/preference/', {
          distinct_ids: ['shared'],
          categories: [{ category: 'offers', preference: 'opt_in' }],
        })
      ).statusCode,
    ).toBe(400);

    const signed = callersOf(t, wsB)['signed key'];
    expect(
      (
        await signed('PATCH', '/v1/bulk/user/preference/?tenant_id=default', {
          distinct_ids: ['shared'],
          channel_preferences: [{ channel: 'email', is_restricted: true }],
        })
      ).json(),
    ).toEqual({ success: true });
    expect((await signed('GET', '/v1/user/shared/preference/channel_preference/')).json()).toEqual({
      channel_preferences: restrictions(['email']),
    });
    expect(
      (await signed('PATCH', '/v1/user/shared/preference/category/offers/', { preference: 'opt_in' })).statusCode,
    ).toBe(202);
    expect(
      (await signed('GET', '/v1/user/shared/preference/evaluate/?category=offers&channel=email')).json(),
    ).toMatchObject({ allowed: false, reason: 'channel_restricted' });
    expect((await a.channels('shared')).json()).toEqual({ channel_preferences: restrictions() });
  });

  it('documents every preference route in OpenAPI with its short errors', async () => {
    const doc = (await t().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const expected: Record<string, string[]> = {
      '/v1/user/{distinct_id}/preference/': ['get'],
      '/v1/user/{distinct_id}/preference/category/{category}/': ['get', 'patch'],
      '/v1/user/{distinct_id}/preference/channel_preference/': ['get', 'patch'],
      '/v1/user/{distinct_id}/preference/evaluate/': ['get'],
      '/v1/bulk/user/preference/': ['patch'],
      '/v1/bulk/user/preference/reset/': ['patch'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      for (const method of methods) {
        const responses = doc.paths[path]?.[method]?.responses;
        expect(Object.keys(responses ?? {}), `${method} ${path}`).toEqual(
          expect.arrayContaining(['400', '401', '404']),
        );
        expect(responses['404'].content['application/json'].schema, `${method} ${path}`).toEqual({
          $ref: '#/components/schemas/ShortError',
        });
      }
    }
    expect(Object.keys(doc.components.schemas.CategoryPreference.properties)).toEqual(
      expect.arrayContaining([
        'name',
        'category',
        'description',
        'original_preference',
        'preference',
        'is_editable',
        'channels',
      ]),
    );
  });
});
