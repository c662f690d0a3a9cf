import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { channelsAt, preferenceWorkspace, restrictions } from '../support/preferences.js';

const ids = (n: number, prefix = 'user') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const CHANNEL_LIST = 'email, sms, whatsapp, androidpush, iospush, webpush, inbox, slack, ms_teams';

describe('PATCH /v1/bulk/user/preference/', () => {
  const t = useTestApp();

  it('answers 202 {success: true}, creates unknown users, and the reads show the update at once', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/user/known/', { plan: 'pro' });
    const response = await call.bulk({
      distinct_ids: ['known', 'fresh'],
      channel_preferences: [{ channel: 'whatsapp', is_restricted: true }],
      categories: [
        {
          category: 'newsletter',
          preference: 'opt_in',
          opt_out_channels: ['email'],
          opt_in_channels: [],
          digest_schedule: {
            id: 'weekly',
            time: '09:00',
            dtstart: '2026-01-05T09:00:00Z',
            weekdays: ['mo'],
            monthdays: [{ pos: 1, day: 'mo' }],
          },
          properties: [{ key: 'topic', value: ['rust', 'go'] }],
        },
      ],
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ success: true });
    expect((await call.inject('GET', '/v1/user/known/')).json().properties).toEqual({ plan: 'pro' });
    expect((await call.inject('GET', '/v1/user/fresh/')).statusCode).toBe(200);
    for (const id of ['known', 'fresh']) {
      expect((await call.category(id, 'newsletter')).json()).toEqual({
        name: 'Name of newsletter',
        category: 'newsletter',
        description: null,
        original_preference: 'opt_in',
        preference: 'opt_in',
        is_editable: true,
        channels: channelsAt('opt_in', { email: 'opt_out', whatsapp: 'opt_out' }),
        opt_in_channels: [],
        opt_out_channels: ['email'],
        digest_schedule: {
          id: 'weekly',
          time: '09:00',
          dtstart: '2026-01-05T09:00:00Z',
          weekdays: ['mo'],
          monthdays: [{ pos: 1, day: 'mo' }],
        },
        properties: [{ key: 'topic', value: ['rust', 'go'] }],
      });
      expect((await call.channels(id)).json()).toEqual({ channel_preferences: restrictions(['whatsapp']) });
    }
  });

  it('takes 1 to 100 distinct_ids: 100 pass, 101 and none are refused', async () => {
    const { call } = await preferenceWorkspace(t);
    const update = { categories: [{ category: 'offers', preference: 'opt_out' }] };
    expect((await call.bulk({ distinct_ids: ids(100), ...update })).statusCode).toBe(202);
    expect(await call.preferenceOf('user-99', 'offers')).toBe('opt_out');
    const tooMany = await call.bulk({ distinct_ids: ids(101, 'more'), ...update });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toEqual({ code: 400, message: 'distinct_ids must NOT have more than 100 items' });
    expect((await call.inject('GET', '/v1/user/more-0/')).statusCode).toBe(404);
    expect((await call.bulk({ distinct_ids: [], ...update })).json()).toEqual({
      code: 400,
      message: 'distinct_ids must NOT have fewer than 1 items',
    });
    expect((await call.bulk({ ...update })).json()).toEqual({ code: 400, message: 'distinct_ids is required' });
  });

  it('refuses an unknown tenant (404), channel, category or preference (400, naming it), writing nothing', async () => {
    const { call } = await preferenceWorkspace(t);
    const valid = { category: 'offers', preference: 'opt_out' };
    const tenant = await call.bulk({ distinct_ids: ['ada'], categories: [valid] }, 'acme');
    expect(tenant.statusCode).toBe(404);
    expect(tenant.json()).toEqual({ code: 404, message: "tenant 'acme' not found" });
    const cases: [Record<string, unknown>, string][] = [
      [
        { channel_preferences: [{ channel: 'fax', is_restricted: true }] },
        `channel_preferences[0].channel: 'fax' is not a channel; expected one of ${CHANNEL_LIST}`,
      ],
      [
        {
          channel_preferences: [
            { channel: 'sms', is_restricted: true },
            { channel: 'sms', is_restricted: false },
          ],
        },
        "channel_preferences[1].channel: 'sms' is named more than once",
      ],
      [
        { categories: [valid, { category: 'unheard-of', preference: 'opt_in' }] },
        "categories[1].category: category 'unheard-of' not found in the live preference categories",
      ],
      [
        { categories: [{ category: 'transactional', preference: 'opt_in' }] },
        "categories[0].category: category 'transactional' not found in the live preference categories",
      ],
      [{ categories: [valid, valid] }, "categories[1].category: 'offers' is named more than once"],
      [
        { categories: [valid, { category: 'newsletter', preference: 'opt_maybe' }] },
        "categories[1].preference: 'opt_maybe' is not a preference; expected opt_in or opt_out",
      ],
      [
        { categories: [{ category: 'newsletter', preference: 'cant_unsubscribe' }] },
        "categories[0].preference: 'cant_unsubscribe' is not a preference; expected opt_in or opt_out",
      ],
      [
        { categories: [{ category: 'newsletter', opt_in_channels: ['email', 'pigeon'] }] },
        `categories[0].opt_in_channels[1]: 'pigeon' is not a channel; expected one of ${CHANNEL_LIST}`,
      ],
      [
        { categories: [{ category: 'newsletter', digest_schedule: { dtstart: 'tomorrow' } }] },
        'categories.0.digest_schedule.dtstart must match format "date-time"',
      ],
      [
        { categories: [{ category: 'newsletter', properties: [{ value: 1 }] }] },
        'categories.0.properties.0.key is required',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await call.bulk({
        distinct_ids: ['ada', 'bob'],
        channel_preferences: [{ channel: 'email', is_restricted: true }],
        ...body,
      });
      expect(response.statusCode, message).toBe(400);
      expect(response.json()).toEqual({ code: 400, message });
    }
    // All or nothing: no user was created, nothing recorded.
    for (const id of ['ada', 'bob']) expect((await call.inject('GET', `/v1/user/${id}/`)).statusCode).toBe(404);
  });

  it('sets what a request names and keeps what it does not, channel by channel, category by category and field by field', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.bulk({
      distinct_ids: ['ada'],
      channel_preferences: [{ channel: 'sms', is_restricted: true }],
      categories: [
        {
          category: 'newsletter',
          preference: 'opt_in',
          opt_out_channels: ['email'],
          digest_schedule: { time: '08:00' },
          properties: [{ key: 'a', value: 1 }],
        },
      ],
    });
    await call.bulk({
      distinct_ids: ['ada'],
      channel_preferences: [{ channel: 'inbox', is_restricted: true }],
      categories: [{ category: 'offers', preference: 'opt_out' }],
    });
    expect((await call.channels('ada')).json()).toEqual({ channel_preferences: restrictions(['sms', 'inbox']) });
    expect((await call.category('ada', 'newsletter')).json()).toMatchObject({
      preference: 'opt_in',
      opt_out_channels: ['email'],
      digest_schedule: { time: '08:00' },
      properties: [{ key: 'a', value: 1 }],
    });
    expect(await call.preferenceOf('ada', 'offers')).toBe('opt_out');

    // Naming only the preference keeps the lists, the digest and the properties.
    await call.bulk({ distinct_ids: ['ada'], categories: [{ category: 'newsletter', preference: 'opt_out' }] });
    expect((await call.category('ada', 'newsletter')).json()).toMatchObject({
      preference: 'opt_out',
      opt_out_channels: ['email'],
      digest_schedule: { time: '08:00' },
      properties: [{ key: 'a', value: 1 }],
    });
    // Naming only a list keeps the preference; a named null clears the digest; a named [] clears a list.
    await call.bulk({
      distinct_ids: ['ada'],
      channel_preferences: [{ channel: 'sms', is_restricted: false }],
      categories: [{ category: 'newsletter', opt_in_channels: ['sms'], digest_schedule: null, properties: [] }],
    });
    const newsletter = (await call.category('ada', 'newsletter')).json();
    expect(newsletter).toMatchObject({
      original_preference: 'opt_out',
      opt_in_channels: ['sms'],
      opt_out_channels: ['email'],
      digest_schedule: null,
      properties: [],
    });
    expect(newsletter.channels).toEqual(channelsAt('opt_out', { sms: 'opt_in' }));
    expect((await call.channels('ada')).json()).toEqual({ channel_preferences: restrictions(['inbox']) });
    await call.bulk({ distinct_ids: ['ada'], categories: [{ category: 'newsletter', opt_out_channels: [] }] });
    expect((await call.category('ada', 'newsletter')).json()).toMatchObject({
      opt_in_channels: ['sms'],
      opt_out_channels: [],
    });

    // A category first named without a preference follows the default.
    await call.bulk({
      distinct_ids: ['ada'],
      categories: [{ category: 'order-updates', opt_out_channels: ['slack'] }],
    });
    const orders = (await call.category('ada', 'order-updates')).json();
    expect(orders).toMatchObject({ original_preference: null, preference: 'opt_in' });
    expect(orders.channels).toEqual(channelsAt('opt_in', { slack: 'opt_out', inbox: 'opt_out' }));
  });

  it('runs one transaction in a fixed number of statements, whatever the number of users and categories', async () => {
    const { call } = await preferenceWorkspace(t);
    const categories = (n: number) =>
      [
        { category: 'newsletter', preference: 'opt_in', opt_out_channels: ['email'] },
        { category: 'offers', preference: 'opt_out', properties: [{ key: 'k', value: 1 }] },
        { category: 'order-updates', digest_schedule: { time: '09:00' } },
        { category: 'security-alerts', preference: 'opt_out' },
      ].slice(0, n);
    const statements = async (body: Record<string, unknown>) => {
      t().queries.reset();
      expect((await call.bulk(body)).statusCode).toBe(202);
      return t().queries.count;
    };
    const channel_preferences = [{ channel: 'sms', is_restricted: true }];
    // A first call finds the API key; later ones are answered by the credential cache.
    await statements({ distinct_ids: ['warm-up'], channel_preferences, categories: categories(1) });
    const one = await statements({ distinct_ids: ['solo'], channel_preferences, categories: categories(1) });
    expect(await statements({ distinct_ids: ids(100), channel_preferences, categories: categories(4) })).toBe(one);
    // Over users that now exist, the same again.
    expect(
      await statements({
        distinct_ids: ids(100),
        channel_preferences: restrictions(['email']),
        categories: categories(4),
      }),
    ).toBe(one);
    // begin, lock tenant, live categories, create/lock users, upsert channels, upsert categories, commit
    // (the API key was found by the calls above: the credential cache answers, no auth lookup)
    expect(one).toBe(7);
    expect(await call.preferenceOf('user-57', 'newsletter')).toBe('opt_in');
  });

  it('runs concurrent updates of overlapping users without errors; each (user, category) ends as one request left it', async () => {
    const { call } = await preferenceWorkspace(t);
    const users = ids(30, 'busy');
    const requests = Array.from({ length: 16 }, (_, i) => ({
      distinct_ids: Array.from({ length: 12 }, (_, j) => users[(i * 5 + j) % users.length]!),
      channel_preferences: [{ channel: 'email', is_restricted: i % 2 === 0 }],
      categories: [
        {
          category: 'newsletter',
          preference: i % 2 ? 'opt_in' : 'opt_out',
          opt_out_channels: i % 3 ? ['sms'] : ['slack'],
          properties: [{ key: 'request', value: i }],
        },
        { category: 'offers', preference: i % 2 ? 'opt_out' : 'opt_in', properties: [{ key: 'request', value: i }] },
      ],
    }));
    const responses = await Promise.all(requests.map((body) => call.bulk(body)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(16).fill(202));
    for (const user of users) {
      const named = requests.filter((body) => body.distinct_ids.includes(user));
      const full = (await call.full(user)).json();
      const byCategory = Object.fromEntries(
        full.sections
          .flatMap((s: { subcategories: { category: string }[] }) => s.subcategories)
          .map((c: { category: string }) => [c.category, c]),
      );
      for (const slug of ['newsletter', 'offers']) {
        const state = byCategory[slug];
        const from = requests[state.properties[0].value as number]!;
        expect(named, `${user} ${slug}`).toContain(from);
        const sent = from.categories.find((c) => c.category === slug)!;
        expect({ preference: state.original_preference, opt_out_channels: state.opt_out_channels }).toEqual({
          preference: sent.preference,
          opt_out_channels: sent.opt_out_channels ?? [],
        });
      }
      // Whole requests apply in some order: the last one applied set both categories.
      expect(byCategory.newsletter.properties).toEqual(byCategory.offers.properties);
      const last = requests[byCategory.newsletter.properties[0].value as number]!;
      expect(full.channel_preferences).toEqual(
        restrictions(last.channel_preferences[0]!.is_restricted ? ['email'] : []),
      );
    }
  });

  it('races updates, per-user writes, resets, user deletions and a tenant deletion: each succeeds or fails cleanly', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/tenant/doomed/', {});
    const users = ids(12, 'race');
    const update = (i: number) => ({
      distinct_ids: users.slice(i % 6, (i % 6) + 6).reverse(),
      channel_preferences: [{ channel: 'sms', is_restricted: true }],
      categories: [{ category: 'offers', preference: 'opt_out' }],
    });
    await call.bulk(update(0), 'doomed');
    const work = [
      ...Array.from({ length: 8 }, (_, i) => call.bulk(update(i), i % 2 ? 'doomed' : undefined)),
      ...users
        .slice(0, 4)
        .map((id, i) => call.setCategory(id, 'newsletter', { preference: 'opt_in' }, i % 2 ? 'doomed' : undefined)),
      call.reset({ distinct_ids: users.slice(3, 9) }, 'doomed'),
      call.reset({ distinct_ids: [...users].reverse() }),
      ...users.slice(6, 9).map((id) => call.inject('DELETE', `/v1/user/${id}/`)),
      call.inject('DELETE', '/v1/bulk/user/', { distinct_ids: users.slice(9) }),
      call.inject('DELETE', '/v1/tenant/doomed/'),
    ];
    const responses = await Promise.all(work);
    for (const response of responses) {
      expect([202, 204, 404], response.body).toContain(response.statusCode);
      // The only refusal: a write in the tenant after it was deleted (or a user deleted meanwhile).
      if (response.statusCode === 404 && response.body)
        expect(response.json().message).toMatch(/^(tenant 'doomed'|user \[distinct_id: 'race-\d+'\]) not found$/);
    }
    const orphans = await t()
      .db.selectFrom('user_category_preferences')
      .select('user_id')
      .where('tenant_id', '=', 'doomed')
      .execute();
    expect(orphans).toEqual([]);
  });
});

describe('PATCH /v1/bulk/user/preference/reset/', () => {
  const t = useTestApp();

  const seed = async (call: Awaited<ReturnType<typeof preferenceWorkspace>>['call'], tenantId?: string) =>
    call.bulk(
      {
        distinct_ids: ['ada', 'bob'],
        channel_preferences: [{ channel: 'sms', is_restricted: true }],
        categories: [{ category: 'offers', preference: 'opt_out' }],
      },
      tenantId,
    );

  it('forgets category choices, channel restrictions or both, for the named users in the tenant only', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.inject('POST', '/v1/tenant/acme/', {});
    await seed(call);
    await seed(call, 'acme');
    const categoriesOnly = await call.reset({
      distinct_ids: ['ada', 'ghost'],
      reset_channel_preferences: false,
      reset_categories: true,
    });
    expect(categoriesOnly.statusCode).toBe(202);
    expect(categoriesOnly.json()).toEqual({ success: true });
    expect(await call.preferenceOf('ada', 'offers')).toBe('opt_in');
    expect((await call.channels('ada')).json()).toEqual({ channel_preferences: restrictions(['sms']) });
    expect((await call.inject('GET', '/v1/user/ghost/')).statusCode).toBe(404);

    await call.reset({ distinct_ids: ['bob'], reset_channel_preferences: true, reset_categories: false });
    expect((await call.channels('bob')).json()).toEqual({ channel_preferences: restrictions() });
    expect(await call.preferenceOf('bob', 'offers')).toBe('opt_out');

    // Both default to true.
    await call.reset({ distinct_ids: ['ada', 'bob'] });
    for (const id of ['ada', 'bob']) {
      expect(await call.preferenceOf(id, 'offers')).toBe('opt_in');
      expect((await call.channels(id)).json()).toEqual({ channel_preferences: restrictions() });
      // The other tenant is untouched.
      expect(await call.preferenceOf(id, 'offers', 'acme')).toBe('opt_out');
      expect((await call.channels(id, 'acme')).json()).toEqual({ channel_preferences: restrictions(['sms']) });
    }
    await call.reset({ distinct_ids: ['ada'] }, 'acme');
    expect(await call.preferenceOf('ada', 'offers', 'acme')).toBe('opt_in');
    expect(await call.preferenceOf('bob', 'offers', 'acme')).toBe('opt_out');
  });

  it('refuses an unknown tenant, more than 100 users and a reset of nothing', async () => {
    const { call } = await preferenceWorkspace(t);
    await seed(call);
    expect((await call.reset({ distinct_ids: ['ada'] }, 'acme')).json()).toEqual({
      code: 404,
      message: "tenant 'acme' not found",
    });
    expect((await call.reset({ distinct_ids: ids(101) })).json()).toEqual({
      code: 400,
      message: 'distinct_ids must NOT have more than 100 items',
    });
    expect(
      (await call.reset({ distinct_ids: ['ada'], reset_channel_preferences: false, reset_categories: false })).json(),
    ).toEqual({
      code: 400,
      message: 'nothing to reset: reset_channel_preferences and reset_categories are both false',
    });
    expect(await call.preferenceOf('ada', 'offers')).toBe('opt_out');
  });

  it('resets 100 users in a fixed number of statements', async () => {
    const { call } = await preferenceWorkspace(t);
    await call.bulk({
      distinct_ids: ids(100),
      categories: [{ category: 'offers', preference: 'opt_out' }],
      channel_preferences: [{ channel: 'sms', is_restricted: true }],
    });
    const statements = async (distinct_ids: string[]) => {
      t().queries.reset();
      expect((await call.reset({ distinct_ids })).statusCode).toBe(202);
      return t().queries.count;
    };
    expect(await statements(['user-0'])).toBe(await statements(ids(100)));
    expect(await call.preferenceOf('user-99', 'offers')).toBe('opt_in');
  });
});
