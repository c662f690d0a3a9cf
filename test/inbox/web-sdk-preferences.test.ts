import { SuprSend } from '@suprsend/web-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { callerFor, restrictions } from '../support/preferences.js';
import { baseCall } from '../support/engine-drivers.js';
import { feedClient, inboxWorkspace } from '../support/inbox.js';

/** What the SDK answers and emits (its own types do not resolve under NodeNext). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK answers untyped JSON
type Json = any;
type Answer = { status: string; statusCode?: number; body?: Json; errorMessage?: string };
type Preferences = {
  getPreferences(args?: { tenantId?: string; showOptOutChannels?: boolean }): Promise<Answer>;
  getCategories(args?: { tenantId?: string; limit?: number; offset?: number }): Promise<Answer>;
  getCategory(category: string, args?: { tenantId?: string }): Promise<Answer>;
  getOverallChannelPreferences(): Promise<Answer>;
  updateCategoryPreference(category: string, preference: string, args?: { tenantId?: string }): Promise<Answer>;
  updateChannelPreferenceInCategory(
    channel: string,
    preference: string,
    category: string,
    args?: { tenantId?: string },
  ): Promise<Answer>;
  updateOverallChannelPreference(channel: string, preference: string): Promise<Answer>;
  data: Json;
};

/**
 * The official web SDK's preference methods (@suprsend/web-sdk 4, unchanged) against Herald, in
 * Node: its hosts point at Herald. Its updates are debounced (1 s) and report through its emitter,
 * so each write waits for `preferences_updated`; the server's v1 routes then show the same state.
 */
describe('the official @suprsend/web-sdk preference centre', () => {
  const t = useTestApp();
  let base = '';
  const cleanups: (() => unknown)[] = [];

  beforeAll(async () => {
    base = await t().app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  async function identified(publicKey: string, distinctId: string, token: string) {
    const suprsend = new SuprSend(publicKey, { host: base });
    cleanups.push(() => suprsend.reset({ unsubscribePush: false }));
    expect((await suprsend.identify(distinctId, token)).status).toBe('success');
    const preferences = (suprsend.user as unknown as { preferences: Preferences }).preferences;
    /** Runs a debounced update and resolves with what the SDK emits once the server has answered. */
    const settled = async (update: () => Promise<Answer>) => {
      const emitted = new Promise<Answer>((resolve) => {
        const done = (answer: Answer) => {
          suprsend.emitter.off('preferences_updated', done);
          suprsend.emitter.off('preferences_error', done);
          resolve(answer);
        };
        suprsend.emitter.on('preferences_updated', done);
        suprsend.emitter.on('preferences_error', done);
      });
      expect((await update()).status).toBe('success');
      return emitted;
    };
    return { preferences, settled };
  }

  it('reads, opts out of a category, changes a channel and restricts a channel; the server agrees', async () => {
    const inbox = await inboxWorkspace(t);
    const server = callerFor(t, inbox.ws);
    const { preferences, settled } = await identified(inbox.publicKey, 'ann', await inbox.mint('ann'));

    const read = await preferences.getPreferences();
    expect(read).toMatchObject({ status: 'success', statusCode: 200 });
    expect(read.body).toEqual((await server.full('ann')).json());
    expect(read.body.sections.map((s: { name: string }) => s.name)).toEqual(['Account', 'Marketing']);
    expect(read.body.channel_preferences).toEqual(restrictions());

    const optedOut = await settled(() => preferences.updateCategoryPreference('offers', 'opt_out'));
    expect(optedOut.status).toBe('success');
    expect(await server.preferenceOf('ann', 'offers')).toBe('opt_out');
    expect(await server.preferenceOf('ann', 'newsletter')).toBe('opt_out');

    await settled(() => preferences.updateChannelPreferenceInCategory('email', 'opt_out', 'order-updates'));
    const orders = (await server.category('ann', 'order-updates')).json();
    expect(orders).toMatchObject({ preference: 'opt_in', opt_out_channels: ['email'] });
    expect(orders.channels.find((c: { channel: string }) => c.channel === 'email').preference).toBe('opt_out');

    await settled(() => preferences.updateOverallChannelPreference('sms', 'required'));
    expect((await server.channels('ann')).json().channel_preferences).toEqual(restrictions(['sms']));
    // After a channel change the SDK refetches the whole preference; what it holds is the server's.
    expect(preferences.data).toEqual((await server.full('ann')).json());

    // Opting back in sends `opt_out_channels: null`: the category is on with every channel.
    await settled(() => preferences.updateCategoryPreference('offers', 'opt_in'));
    expect((await server.category('ann', 'offers')).json()).toMatchObject({
      preference: 'opt_in',
      opt_out_channels: [],
    });

    const page = await preferences.getCategories({ limit: 2, offset: 1 });
    expect(page.body.meta).toEqual({ count: 4, limit: 2, offset: 1 });
    expect(page.body.results.map((c: { category: string }) => c.category)).toEqual(['security-alerts', 'newsletter']);
    expect((await preferences.getCategory('order-updates')).body).toEqual(
      (await server.category('ann', 'order-updates')).json(),
    );
    expect((await preferences.getOverallChannelPreferences()).body).toEqual({
      channel_preferences: restrictions(['sms']),
    });
  });

  it('keeps each tenant apart; a tenant-scoped token reads and writes its tenant only', async () => {
    const inbox = await inboxWorkspace(t);
    const server = callerFor(t, inbox.ws);
    expect((await baseCall(t, inbox.ws)('POST', '/v1/tenant/acme/', { tenant_name: 'Acme' })).statusCode).toBeLessThan(
      300,
    );
    const { preferences, settled } = await identified(inbox.publicKey, 'ann', await inbox.mint('ann'));
    expect((await preferences.getPreferences({ tenantId: 'acme' })).status).toBe('success');
    await settled(() => preferences.updateCategoryPreference('newsletter', 'opt_in', { tenantId: 'acme' }));
    expect(await server.preferenceOf('ann', 'newsletter', 'acme')).toBe('opt_in');
    expect(await server.preferenceOf('ann', 'newsletter')).toBe('opt_out');

    const scoped = await identified(inbox.publicKey, 'ann', await inbox.mint('ann', { tenantId: 'acme' }));
    const inAcme = await scoped.preferences.getPreferences();
    expect(inAcme.body).toEqual((await server.full('ann', 'acme')).json());
    const elsewhere = await scoped.preferences.getPreferences({ tenantId: 'default' });
    expect(elsewhere).toMatchObject({ status: 'error', statusCode: 403 });
    expect(elsewhere.body.message).toMatch(/scoped to tenant 'acme'/);
  });

  it("never reads or writes another user's preferences, nor another workspace's", async () => {
    const inbox = await inboxWorkspace(t);
    const other = await inboxWorkspace(t);
    const server = callerFor(t, inbox.ws);
    expect(
      (await server.setChannels('ann', { channel_preferences: [{ channel: 'sms', is_restricted: true }] })).statusCode,
    ).toBe(202);
    const asBen = feedClient(t, inbox.publicKey, await inbox.mint('ben'));
    for (const [method, path, body] of [
      ['GET', '/v2/subscriber/ann/full_preference/'],
      ['GET', '/v2/subscriber/ann/category/?limit=10'],
      ['GET', '/v2/subscriber/ann/category/offers/'],
      ['GET', '/v2/subscriber/ann/channel_preference'],
      ['PATCH', '/v2/subscriber/ann/category/offers/', { preference: 'opt_out' }],
      ['PATCH', '/v2/subscriber/ann/channel_preference', { channel_preferences: restrictions() }],
      ['PATCH', '/v2/subscriber/ann/full_preference/', { channel_preferences: restrictions() }],
    ] as const) {
      const answer = await asBen(method, path, body);
      expect(answer.statusCode, `${method} ${path}`).toBe(403);
      expect(answer.json()).toMatchObject({ code: 403, message: 'distinct_id is not the user token’s subscriber' });
      expect(answer.body).not.toContain('is_restricted');
    }
    // A token of another workspace, with this workspace's public key: 401, nothing learnt.
    const foreign = feedClient(t, inbox.publicKey, await other.mint('ann'));
    expect((await foreign('GET', '/v2/subscriber/ann/full_preference/')).statusCode).toBe(401);
    expect((await foreign('PATCH', '/v2/subscriber/ann/category/offers/', { preference: 'opt_out' })).statusCode).toBe(
      401,
    );
    expect((await server.channels('ann')).json().channel_preferences).toEqual(restrictions(['sms']));
    expect(await server.preferenceOf('ann', 'offers')).toBe('opt_in');
  });

  it('answers bad input with a 4xx in the shape the SDK reads', async () => {
    const inbox = await inboxWorkspace(t);
    const asAnn = feedClient(t, inbox.publicKey, await inbox.mint('ann'));
    const badPreference = await asAnn('PATCH', '/v2/subscriber/ann/category/offers/', { preference: 'maybe' });
    expect(badPreference.statusCode).toBe(400);
    expect(badPreference.json()).toMatchObject({
      code: 400,
      message: expect.stringMatching(/'maybe' is not a preference/),
    });
    const badChannel = await asAnn('PATCH', '/v2/subscriber/ann/category/offers/', { opt_out_channels: ['pigeon'] });
    expect(badChannel.statusCode).toBe(400);
    const unknownField = await asAnn('PATCH', '/v2/subscriber/ann/category/offers/', { preferences: 'opt_in' });
    expect(unknownField.statusCode).toBe(400);
    const unknownCategory = await asAnn('PATCH', '/v2/subscriber/ann/category/nope/', { preference: 'opt_in' });
    expect(unknownCategory.statusCode).toBe(404);
    const unknownTenant = await asAnn('GET', '/v2/subscriber/ann/full_preference/?tenant_id=nowhere');
    expect(unknownTenant.statusCode).toBe(404);
    const preflight = await t().app.inject({ method: 'OPTIONS', url: '/v2/subscriber/ann/category/offers/' });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-methods']).toContain('PATCH');
  });
});
