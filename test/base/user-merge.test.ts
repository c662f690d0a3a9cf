import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { configClient, definition } from '../support/config.js';
import { sdkFor } from '../support/sdk.js';

describe('merging users', () => {
  const t = useTestApp();
  const call = (ws: WorkspaceFixture, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });

  it('moves profile, channels, subscriptions, list memberships and preferences to the primary user, then deletes the other', async () => {
    const ws = await createWorkspaceFixture(t());
    await configClient(t, ws).commitDefinition(definition(['news', 'billing']));
    await call(ws, 'POST', '/v1/user/primary/', { $email: ['p@example.com', 'both@example.com'], plan: 'pro' });
    await call(ws, 'POST', '/v1/user/secondary/', {
      $email: ['both@example.com', 's@example.com'],
      $sms: ['+14155550123'],
      plan: 'free',
      city: 'Oslo',
    });
    // Subscriptions: one object only the secondary follows, one both do.
    for (const object of ['only-secondary', 'shared']) await call(ws, 'POST', `/v1/object/teams/${object}/`, {});
    await call(ws, 'POST', '/v1/object/teams/only-secondary/subscription/', {
      recipients: ['secondary'],
      properties: { role: 's' },
    });
    await call(ws, 'POST', '/v1/object/teams/shared/subscription/', {
      recipients: ['primary'],
      properties: { role: 'p' },
    });
    await call(ws, 'POST', '/v1/object/teams/shared/subscription/', {
      recipients: ['secondary'],
      properties: { role: 's' },
    });
    // Lists, the same way.
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'only-secondary' });
    await call(ws, 'POST', '/v1/subscriber_list/', { list_id: 'shared' });
    await call(ws, 'POST', '/v1/subscriber_list/only-secondary/subscriber/add/', { distinct_ids: ['secondary'] });
    await call(ws, 'POST', '/v1/subscriber_list/shared/subscriber/add/', { distinct_ids: ['primary', 'secondary'] });
    // Preferences: the secondary chose for both categories, the primary for one; channels alike.
    await call(ws, 'PATCH', '/v1/user/secondary/preference/category/news/', { preference: 'opt_out' });
    await call(ws, 'PATCH', '/v1/user/secondary/preference/category/billing/', { preference: 'opt_out' });
    await call(ws, 'PATCH', '/v1/user/primary/preference/category/billing/', {
      preference: 'opt_in',
      opt_out_channels: ['sms'],
    });
    await call(ws, 'PATCH', '/v1/user/secondary/preference/channel_preference/', {
      channel_preferences: [
        { channel: 'sms', is_restricted: true },
        { channel: 'email', is_restricted: true },
      ],
    });
    await call(ws, 'PATCH', '/v1/user/primary/preference/channel_preference/', {
      channel_preferences: [{ channel: 'email', is_restricted: false }],
    });

    const merged = await call(ws, 'POST', '/v1/user/primary/merge/', { from_user_id: 'secondary' });
    expect(merged.statusCode).toBe(201);
    const user = merged.json();
    expect(user.distinct_id).toBe('primary');
    expect(user.properties).toEqual({ plan: 'pro', city: 'Oslo' });
    expect(user.$email.map((e: { value: string }) => e.value)).toEqual([
      'p@example.com',
      'both@example.com',
      's@example.com',
    ]);
    expect(user.$sms.map((e: { value: string }) => e.value)).toEqual(['+14155550123']);
    expect((await call(ws, 'GET', '/v1/user/primary/')).json()).toEqual(user);
    expect((await call(ws, 'GET', '/v1/user/secondary/')).statusCode).toBe(404);

    const following = (await call(ws, 'GET', '/v1/user/primary/subscribed_to/object/')).json().results;
    // Where both followed the object, the primary's subscription (and its properties) is the one kept.
    expect(following.map((r: { object: { id: string }; properties: unknown }) => [r.object.id, r.properties])).toEqual([
      ['only-secondary', { role: 's' }],
      ['shared', { role: 'p' }],
    ]);
    expect((await call(ws, 'GET', '/v1/object/teams/shared/')).json().subscriptions_count).toBe(1);
    expect((await call(ws, 'GET', '/v1/object/teams/only-secondary/')).json().subscriptions_count).toBe(1);

    const lists = (await call(ws, 'GET', '/v1/user/primary/subscribed_to/list/')).json().results;
    expect(lists.map((r: { list: { list_id: string } }) => r.list.list_id).sort()).toEqual([
      'only-secondary',
      'shared',
    ]);
    expect((await call(ws, 'GET', '/v1/subscriber_list/shared/')).json().subscribers_count).toBe(1);

    const news = (await call(ws, 'GET', '/v1/user/primary/preference/category/news/')).json();
    const billing = (await call(ws, 'GET', '/v1/user/primary/preference/category/billing/')).json();
    expect([news.preference, billing.preference]).toEqual(['opt_out', 'opt_in']);
    const channels = (await call(ws, 'GET', '/v1/user/primary/preference/channel_preference/')).json();
    expect(channels.channel_preferences).toEqual(
      expect.arrayContaining([
        { channel: 'email', is_restricted: false },
        { channel: 'sms', is_restricted: true },
      ]),
    );
  });

  it('answers 404 for either user missing, 400 for a user merged into itself, and changes nothing then', async () => {
    const ws = await createWorkspaceFixture(t());
    await call(ws, 'POST', '/v1/user/a/', { plan: 'a' });
    const noSecondary = await call(ws, 'POST', '/v1/user/a/merge/', { from_user_id: 'ghost' });
    expect([noSecondary.statusCode, noSecondary.json()]).toEqual([
      404,
      { code: 404, message: "from_user_id: [distinct_id: 'ghost'] not found" },
    ]);
    const noPrimary = await call(ws, 'POST', '/v1/user/ghost/merge/', { from_user_id: 'a' });
    expect([noPrimary.statusCode, noPrimary.json()]).toEqual([
      404,
      { code: 404, message: "user [distinct_id: 'ghost'] not found" },
    ]);
    const self = await call(ws, 'POST', '/v1/user/a/merge/', { from_user_id: 'a' });
    expect(self.statusCode).toBe(400);
    const missing = await call(ws, 'POST', '/v1/user/a/merge/', {});
    expect([missing.statusCode, missing.json().message]).toEqual([400, 'from_user_id is required']);
    expect((await call(ws, 'GET', '/v1/user/a/')).json().properties).toEqual({ plan: 'a' });
  });

  it('answers the SDK users.merge', async () => {
    const ws = await createWorkspaceFixture(t());
    const sdk = await sdkFor(t(), ws);
    await sdk.users.upsert('main', { $email: ['m@example.com'] });
    await sdk.users.upsert('alias', { $email: ['a@example.com'], source: 'mobile' });
    const merged = await sdk.users.merge('main', 'alias');
    expect(merged).toMatchObject({ distinct_id: 'main', properties: { source: 'mobile' } });
    expect(merged.$email.map((e: { value: string }) => e.value)).toEqual(['m@example.com', 'a@example.com']);
    await expect(sdk.users.get('alias')).rejects.toThrow("404: user [distinct_id: 'alias'] not found");
  });
});
