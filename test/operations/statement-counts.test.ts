import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { configClient, definition, workflowBody } from '../support/config.js';

/**
 * Every write endpoint whose request carries a list sends the same number of SQL statements for
 * one item as for many (subscriptions, events and bulk preferences have their own such tests).
 * Structure, not timing: a statement per item would fail here on any machine.
 */
describe('statements per write request do not grow with its size', () => {
  const t = useTestApp();
  const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);

  async function statements(
    ws: WorkspaceFixture,
    method: 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload: unknown,
    surface: 'base' | 'management' = 'base',
  ) {
    t().queries.reset();
    const response = await t().app.inject({ method, url, headers: ws[surface], payload: payload as object });
    expect(response.statusCode, `${method} ${url}: ${response.body}`).toBeLessThan(300);
    return t().queries.count;
  }

  it('bulk deletion of users and of objects', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const i of range(120)) {
      await t().app.inject({ method: 'POST', url: `/v1/user/gone-${i}/`, headers: ws.base, payload: {} });
      await t().app.inject({ method: 'POST', url: `/v1/object/boxes/gone-${i}/`, headers: ws.base, payload: {} });
    }
    const users = (ids: number[]) => ({ distinct_ids: ids.map((i) => `gone-${i}`) });
    expect(await statements(ws, 'DELETE', '/v1/bulk/user/', users(range(100, 10)))).toBe(
      await statements(ws, 'DELETE', '/v1/bulk/user/', users([0])),
    );
    const objects = (ids: number[]) => ({ object_ids: ids.map((i) => `gone-${i}`) });
    expect(await statements(ws, 'DELETE', '/v1/bulk/object/boxes/', objects(range(100, 10)))).toBe(
      await statements(ws, 'DELETE', '/v1/bulk/object/boxes/', objects([0])),
    );
  });

  it('removing subscriptions', async () => {
    const ws = await createWorkspaceFixture(t());
    await t().app.inject({ method: 'POST', url: '/v1/object/teams/t/', headers: ws.base, payload: {} });
    const recipients = range(101).map((i) => `member-${i}`);
    await t().app.inject({
      method: 'POST',
      url: '/v1/object/teams/t/subscription/',
      headers: ws.base,
      payload: { recipients: recipients.slice(0, 100) },
    });
    const url = '/v1/object/teams/t/subscription/';
    expect(await statements(ws, 'DELETE', url, { recipients: recipients.slice(1, 100) })).toBe(
      await statements(ws, 'DELETE', url, { recipients: recipients.slice(0, 1) }),
    );
  });

  it('edits and upserts of a user and of an object, whatever the number of operations and channel values', async () => {
    const ws = await createWorkspaceFixture(t());
    const operations = (n: number) => ({
      operations: range(n).map((i) =>
        i % 2 ? { $set: { [`p${i}`]: i } } : { $append: { $email: `e${i}@example.com` } },
      ),
    });
    const upsert = (n: number) => ({
      $email: range(n).map((i) => `u${i}@example.com`),
      $sms: range(n).map((i) => `+1415555${String(1000 + i)}`),
    });
    // Each side on an entity of its own, created alike: both requests change what they name.
    for (const [label, path] of [
      ['user', (id: string) => `/v1/user/${id}/`],
      ['object', (id: string) => `/v1/object/boxes/${id}/`],
    ] as const) {
      for (const id of ['edit-many', 'edit-one'])
        await t().app.inject({ method: 'POST', url: path(id), headers: ws.base, payload: {} });
      expect(await statements(ws, 'PATCH', path('edit-many'), operations(100)), label).toBe(
        await statements(ws, 'PATCH', path('edit-one'), operations(1)),
      );
      expect(await statements(ws, 'POST', path('upsert-many'), upsert(50)), label).toBe(
        await statements(ws, 'POST', path('upsert-one'), upsert(1)),
      );
    }
  });

  it('a tenant, whatever its blocked channels and properties', async () => {
    const ws = await createWorkspaceFixture(t());
    const channels = ['email', 'sms', 'whatsapp', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams'];
    const body = (n: number) => ({
      blocked_channels: channels.slice(0, Math.min(n, channels.length)),
      properties: Object.fromEntries(range(n).map((i) => [`p${i}`, i])),
    });
    // The workspace's first call also looks its API key up; the measured ones find it cached.
    await t().app.inject({ method: 'GET', url: '/v1/tenant/warm-up/', headers: ws.base });
    expect(await statements(ws, 'POST', '/v1/tenant/many/', body(100))).toBe(
      await statements(ws, 'POST', '/v1/tenant/one/', body(1)),
    );
  });

  it("a user's choice for one category, whatever its channel lists", async () => {
    const ws = await createWorkspaceFixture(t());
    await configClient(t, ws).commitDefinition(definition(['news']));
    const channels = ['email', 'sms', 'whatsapp', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams'];
    const body = (n: number) => ({ preference: 'opt_in', opt_out_channels: channels.slice(0, n) });
    const url = (id: string) => `/v1/user/${id}/preference/category/news/`;
    for (const id of ['choice-many', 'choice-one'])
      await t().app.inject({ method: 'POST', url: `/v1/user/${id}/`, headers: ws.base, payload: {} });
    expect(await statements(ws, 'PATCH', url('choice-many'), body(8))).toBe(
      await statements(ws, 'PATCH', url('choice-one'), body(1)),
    );
  });

  it("a user's channel preferences", async () => {
    const ws = await createWorkspaceFixture(t());
    await t().app.inject({ method: 'POST', url: '/v1/user/prefs/', headers: ws.base, payload: {} });
    const url = '/v1/user/prefs/preference/channel_preference/';
    const channels = ['email', 'sms', 'whatsapp', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams'];
    const body = (names: string[]) => ({
      channel_preferences: names.map((channel) => ({ channel, is_restricted: true })),
    });
    expect(await statements(ws, 'PATCH', url, body(channels))).toBe(
      await statements(ws, 'PATCH', url, body(channels.slice(0, 1))),
    );
  });

  it("a user's and an object's whole preference and a tenant's category overrides, whatever their lists", async () => {
    const ws = await createWorkspaceFixture(t());
    const slugs = range(30).map((i) => `cat-${i}`);
    await configClient(t, ws).commitDefinition(definition(slugs));
    const channels = ['email', 'sms', 'whatsapp', 'inbox', 'androidpush', 'iospush', 'slack', 'ms_teams'];
    const body = (n: number) => ({
      channel_preferences: channels.slice(0, Math.min(n, 8)).map((channel) => ({ channel, is_restricted: true })),
      categories: slugs.slice(0, n).map((category) => ({ category, preference: 'opt_out', opt_in_channels: channels })),
    });
    for (const id of ['whole-many', 'whole-one'])
      await t().app.inject({ method: 'POST', url: `/v1/user/${id}/`, headers: ws.base, payload: {} });
    expect(await statements(ws, 'PATCH', '/v1/user/whole-many/preference/', body(30))).toBe(
      await statements(ws, 'PATCH', '/v1/user/whole-one/preference/', body(1)),
    );
    expect(await statements(ws, 'PATCH', '/v1/object/teams/many/preference/', body(30))).toBe(
      await statements(ws, 'PATCH', '/v1/object/teams/one/preference/', body(1)),
    );
    const tenant = (n: number) => ({
      blocked_channels: channels.slice(0, n),
      opt_in_channels: channels.slice(0, n),
      mandatory_channels: channels.slice(0, n),
    });
    expect(await statements(ws, 'PATCH', '/v1/tenant/default/preference/category/cat-1/', tenant(8))).toBe(
      await statements(ws, 'PATCH', '/v1/tenant/default/preference/category/cat-2/', tenant(1)),
    );
  });

  it('subscriber list members, live and draft, added, removed and synced', async () => {
    const ws = await createWorkspaceFixture(t());
    const ids = (n: number, from = 0) => ({ distinct_ids: range(n, from).map((i) => `member-${i}`) });
    for (const list of ['many', 'one'])
      await t().app.inject({
        method: 'POST',
        url: '/v1/subscriber_list/',
        headers: ws.base,
        payload: { list_id: list, track_user_entry: true, track_user_exit: true },
      });
    const list = (id: string) => `/v1/subscriber_list/${id}`;
    expect(await statements(ws, 'POST', `${list('many')}/subscriber/add/`, ids(100))).toBe(
      await statements(ws, 'POST', `${list('one')}/subscriber/add/`, ids(1)),
    );
    expect(await statements(ws, 'POST', `${list('many')}/subscriber/remove/`, ids(50))).toBe(
      await statements(ws, 'POST', `${list('one')}/subscriber/remove/`, ids(1)),
    );
    const versions: Record<string, string> = {};
    for (const id of ['many', 'one']) {
      const started = await t().app.inject({ method: 'POST', url: `${list(id)}/start_sync/`, headers: ws.base });
      versions[id] = started.json().version_id;
    }
    const version = (id: string) => `${list(id)}/version/${versions[id]}`;
    expect(await statements(ws, 'POST', `${version('many')}/subscriber/add/`, ids(100, 25))).toBe(
      await statements(ws, 'POST', `${version('one')}/subscriber/add/`, ids(1, 25)),
    );
    expect(await statements(ws, 'POST', `${version('many')}/subscriber/remove/`, ids(40, 25))).toBe(
      await statements(ws, 'POST', `${version('one')}/subscriber/remove/`, ids(1, 200)),
    );
    expect(await statements(ws, 'PATCH', `${version('many')}/finish_sync/`, {})).toBe(
      await statements(ws, 'PATCH', `${version('one')}/finish_sync/`, {}),
    );
  });

  it('preference categories, translations and workflows, whatever their size', async () => {
    // Each side in a workspace of its own: both create their draft.
    const [many, one] = [await createWorkspaceFixture(t()), await createWorkspaceFixture(t())];
    const post = (ws: WorkspaceFixture, path: string, body: unknown) =>
      statements(ws, 'POST', `/management/v1/${ws.slug}${path}`, body, 'management');
    const categories = (n: number) => definition(range(n).map((i) => `cat-${i}`));
    expect(await post(many, '/preference_category/', categories(60))).toBe(
      await post(one, '/preference_category/', categories(1)),
    );
    const content = (n: number) => ({
      content: Object.fromEntries(range(n).map((i) => [`key_${i}`, { text: `value ${i}` }])),
    });
    expect(await post(many, '/translation/content/fr.json/', content(500))).toBe(
      await post(one, '/translation/content/fr.json/', content(1)),
    );
    for (const ws of [many, one]) await configClient(t, ws).commitDefinition(definition(['welcome']));
    const workflow = (n: number) =>
      workflowBody('welcome', {
        tags: range(n).map((i) => `tag-${i}`),
        trigger_type: 'event',
        trigger_events: range(n).map((i) => `event-${i}`),
      });
    expect(await post(many, '/workflow/onboarding/', workflow(100))).toBe(
      await post(one, '/workflow/onboarding/', workflow(1)),
    );
  });
  it('templates: metadata, a variant and a commit, whatever the number of tags, conditions and variants', async () => {
    const [many, one] = [await createWorkspaceFixture(t()), await createWorkspaceFixture(t())];
    const send = (ws: WorkspaceFixture, method: 'POST' | 'PATCH', path: string, body: unknown) =>
      statements(ws, method, `/management/v2/${ws.slug}/template/${path}`, body, 'management');
    const metadata = (n: number) => ({
      name: 'Digest',
      tags: range(n).map((i) => `tag-${i}`),
      enabled_channels: ['inbox', 'sms', 'email', 'slack'].slice(0, n === 1 ? 1 : 4),
    });
    expect(await send(many, 'POST', 'digest/', metadata(100))).toBe(await send(one, 'POST', 'digest/', metadata(1)));
    const condition = (i: number) => ({
      type: 'expression_v1',
      expression_v1: { op: 'AND', args: [{ op: '==', variable_ns: '$recipient', variable: `v${i}`, value: 'x' }] },
    });
    const variant = (n: number, locale = 'en') => ({
      locale,
      conditions: range(n).map(condition),
      content: {
        text: 'Hi',
        actions: range(Math.min(n, 10)).map((i) => ({ name: `a${i}`, url: `https://x.test/${i}` })),
      },
    });
    expect(await send(many, 'POST', 'digest/channel/inbox/variant/default/', variant(20))).toBe(
      await send(one, 'POST', 'digest/channel/inbox/variant/default/', variant(1)),
    );
    for (const i of range(19, 1)) await send(many, 'POST', `digest/channel/inbox/variant/v${i}/`, variant(1, 'fr'));
    for (const channel of ['sms', 'slack'])
      await send(many, 'POST', `digest/channel/${channel}/variant/default/`, { locale: 'en', content: { text: 'x' } });
    await send(many, 'POST', 'digest/channel/email/variant/default/', {
      locale: 'en',
      content: { subject: 's', html: 'h' },
    });
    expect(await send(many, 'PATCH', 'digest/commit/', {})).toBe(await send(one, 'PATCH', 'digest/commit/', {}));
  });
});
