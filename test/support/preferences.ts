import type { TestApp } from './app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from './fixtures.js';
import { category, configClient } from './config.js';

/** The live definition preference tests run against: one category per default, in two sections. */
export const DEFINITION = {
  root_categories: [
    { root_category: 'system', sections: [] },
    {
      root_category: 'transactional',
      sections: [
        {
          name: 'Account',
          categories: [
            { ...category('order-updates'), description: 'Where your order is' },
            category('security-alerts', 'cant_unsubscribe'),
          ],
        },
      ],
    },
    {
      root_category: 'promotional',
      sections: [{ name: 'Marketing', categories: [category('newsletter', 'opt_out'), category('offers', 'opt_in')] }],
    },
  ],
};

export const CHANNELS = ['email', 'sms', 'whatsapp', 'androidpush', 'iospush', 'webpush', 'inbox', 'slack', 'ms_teams'];

/** Every channel at one preference, or as given per channel. */
export const channelsAt = (preference: string, overrides: Record<string, string> = {}, is_editable = true) =>
  CHANNELS.map((channel) => ({ channel, preference: overrides[channel] ?? preference, is_editable }));

export const restrictions = (restricted: string[] = []) =>
  CHANNELS.map((channel) => ({ channel, is_restricted: restricted.includes(channel) }));

/** A workspace with DEFINITION live, and a caller for its base surface (API key). */
export async function preferenceWorkspace(t: () => TestApp): Promise<{ ws: WorkspaceFixture; call: PreferenceCaller }> {
  const ws = await createWorkspaceFixture(t());
  await configClient(t, ws).commitDefinition(DEFINITION);
  return { ws, call: callerFor(t, ws) };
}

export type PreferenceCaller = ReturnType<typeof callerFor>;

export function callerFor(t: () => TestApp, ws: WorkspaceFixture) {
  const inject = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    t().app.inject({ method, url, headers: ws.base, ...(payload === undefined ? {} : { payload: payload as object }) });
  const tenant = (tenantId?: string) => (tenantId === undefined ? '' : `?tenant_id=${encodeURIComponent(tenantId)}`);
  return {
    inject,
    bulk: (body: unknown, tenantId?: string) => inject('PATCH', `/v1/bulk/user/preference/${tenant(tenantId)}`, body),
    reset: (body: unknown, tenantId?: string) =>
      inject('PATCH', `/v1/bulk/user/preference/reset/${tenant(tenantId)}`, body),
    full: (id: string, tenantId?: string) =>
      inject('GET', `/v1/user/${encodeURIComponent(id)}/preference/${tenant(tenantId)}`),
    category: (id: string, slug: string, tenantId?: string) =>
      inject('GET', `/v1/user/${encodeURIComponent(id)}/preference/category/${slug}/${tenant(tenantId)}`),
    setCategory: (id: string, slug: string, body: unknown, tenantId?: string) =>
      inject('PATCH', `/v1/user/${encodeURIComponent(id)}/preference/category/${slug}/${tenant(tenantId)}`, body),
    channels: (id: string, tenantId?: string) =>
      inject('GET', `/v1/user/${encodeURIComponent(id)}/preference/channel_preference/${tenant(tenantId)}`),
    setChannels: (id: string, body: unknown, tenantId?: string) =>
      inject('PATCH', `/v1/user/${encodeURIComponent(id)}/preference/channel_preference/${tenant(tenantId)}`, body),
    evaluate: (id: string, category: string, channel: string, tenantId?: string) =>
      inject(
        'GET',
        `/v1/user/${encodeURIComponent(id)}/preference/evaluate/?category=${category}&channel=${channel}${tenantId === undefined ? '' : `&tenant_id=${tenantId}`}`,
      ),
    /** The effective category preference, read through GET category. */
    async preferenceOf(id: string, slug: string, tenantId?: string): Promise<string> {
      const response = await inject(
        'GET',
        `/v1/user/${encodeURIComponent(id)}/preference/category/${slug}/${tenant(tenantId)}`,
      );
      if (response.statusCode !== 200) throw new Error(response.body);
      return response.json().preference;
    },
  };
}
