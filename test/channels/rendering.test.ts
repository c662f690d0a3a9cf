import { describe, expect, it } from 'vitest';
import { renderTemplate, type RenderRequest } from '../../src/channels/rendering.js';
import { useTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

function templates(t: () => TestApp, ws: WorkspaceFixture) {
  const inject = async (method: 'POST' | 'PATCH', path: string, payload: unknown) => {
    const response = await t().app.inject({
      method,
      url: `/management${path}`,
      headers: ws.management,
      payload: payload as object,
    });
    if (response.statusCode >= 300) throw new Error(`${path}: ${response.body}`);
    return response.json();
  };
  return {
    async define(
      slug: string,
      variants: {
        channel: string;
        id: string;
        locale?: string;
        tenant_id?: string | null;
        conditions?: unknown[];
        content: unknown;
      }[],
    ) {
      const channels = [...new Set(variants.map((v) => v.channel))];
      await inject('POST', `/v2/${ws.slug}/template/${slug}/`, { name: slug, enabled_channels: channels });
      for (const v of variants)
        await inject('POST', `/v2/${ws.slug}/template/${slug}/channel/${v.channel}/variant/${v.id}/`, {
          locale: v.locale ?? 'en',
          tenant_id: v.tenant_id ?? null,
          conditions: v.conditions ?? [],
          content: v.content,
        });
      return inject('PATCH', `/v2/${ws.slug}/template/${slug}/commit/`, {});
    },
    async translation(file: string, content: unknown) {
      await inject('POST', `/v1/${ws.slug}/translation/content/${file}/`, {
        locale: file.split('.').slice(-2)[0],
        content,
      });
      await inject('PATCH', `/v1/${ws.slug}/translation/commit/`, null);
    },
  };
}

const request = (ws: WorkspaceFixture, overrides: Partial<RenderRequest> = {}): RenderRequest => ({
  workspaceId: String(ws.workspaceId),
  templateSlug: 'welcome',
  channel: 'email',
  tenantId: 'default',
  locale: null,
  context: { data: {}, $recipient: { distinct_id: 'u1' }, $actor: null, $brand: null },
  ...overrides,
});

describe('renderTemplate: the live version, for one recipient', () => {
  const t = useTestApp();

  it('renders data at the root and the namespaces; HTML email escapes data, text parts do not; missing is empty', async () => {
    const ws = await createWorkspaceFixture(t());
    await templates(t, ws).define('welcome', [
      {
        channel: 'email',
        id: 'default',
        content: {
          subject: 'Hi {{name}} & {{$brand.brand_name}}{{missing.deep}}',
          html: '<p>{{name}} from {{$actor.name}}</p><p>{{{trusted}}}</p>{{#each $batched_events}}<i>{{item}}</i>{{/each}}',
          text: '{{name}} ({{$recipient.distinct_id}}) {{recipient.subscription.plan}} {{$batched_events_count}}',
        },
      },
      {
        channel: 'inbox',
        id: 'default',
        content: {
          header: '{{name}}',
          text: 'Order {{order.id}}',
          actions: [{ name: 'Open', url: 'https://x.test/{{order.id}}' }],
        },
      },
      {
        channel: 'androidpush',
        id: 'default',
        content: { title: 'T', body: '{{name}}', data: { order: '{{order.id}}', n: 3 } },
      },
    ]);
    const context = {
      data: { name: '<b>Ann</b>', trusted: '<em>ok</em>', order: { id: 'A-1' } },
      $recipient: { distinct_id: 'u1' },
      $actor: { name: 'Bob' },
      $brand: { brand_name: 'Acme' },
      $batched_events: [{ item: '<1>' }, { item: '2' }],
      recipient: { subscription: { plan: 'pro' } },
    };
    const email = await renderTemplate(t().db, request(ws, { context }));
    expect(email).toEqual({
      ok: true,
      content: {
        subject: 'Hi <b>Ann</b> & Acme',
        html: '<p>&lt;b&gt;Ann&lt;/b&gt; from Bob</p><p><em>ok</em></p><i>&lt;1&gt;</i><i>2</i>',
        text: '<b>Ann</b> (u1) pro 2',
      },
      template: { slug: 'welcome', version_no: 1, variant_id: 'default' },
    });
    expect(await renderTemplate(t().db, request(ws, { channel: 'inbox', context }))).toMatchObject({
      ok: true,
      content: {
        header: '<b>Ann</b>',
        text: 'Order A-1',
        url: '',
        avatar: '',
        actions: [{ name: 'Open', url: 'https://x.test/A-1' }],
      },
    });
    expect(await renderTemplate(t().db, request(ws, { channel: 'androidpush', context }))).toMatchObject({
      ok: true,
      content: { title: 'T', body: '<b>Ann</b>', data: { order: 'A-1', n: 3 } },
    });
  });

  it('chooses tenant + locale, then locale, then the default variant, and honours conditions', async () => {
    const ws = await createWorkspaceFixture(t());
    await templates(t, ws).define('welcome', [
      { channel: 'sms', id: 'default', content: { text: 'default' } },
      { channel: 'sms', id: 'es', locale: 'es', content: { text: 'es' } },
      { channel: 'sms', id: 'es-mx-acme', locale: 'es-MX', tenant_id: 'acme', content: { text: 'es-MX acme' } },
      { channel: 'sms', id: 'fr-acme', locale: 'fr', tenant_id: 'acme', content: { text: 'fr acme' } },
      {
        channel: 'sms',
        id: 'vip',
        locale: 'de',
        conditions: [
          {
            type: 'expression_v1',
            expression_v1: {
              op: 'AND',
              args: [{ op: '==', variable_ns: '$recipient', variable: 'tier', value: 'vip' }],
            },
          },
        ],
        content: { text: 'de vip' },
      },
    ]);
    const text = async (tenantId: string, locale: string | null, tier = 'basic') => {
      const outcome = await renderTemplate(
        t().db,
        request(ws, {
          channel: 'sms',
          tenantId,
          locale,
          context: { data: {}, $recipient: { distinct_id: 'u', tier }, $actor: null, $brand: null },
        }),
      );
      return outcome.ok ? outcome.content.text : outcome.reason;
    };
    expect(await text('acme', 'es-MX')).toBe('es-MX acme');
    expect(await text('other', 'es-MX')).toBe('es');
    expect(await text('acme', 'es')).toBe('es');
    expect(await text('acme', 'fr-CA')).toBe('fr acme');
    expect(await text('other', 'fr')).toBe('default');
    expect(await text('other', null)).toBe('default');
    expect(await text('other', 'de')).toBe('default');
    expect(await text('other', 'de', 'vip')).toBe('de vip');
  });

  it('takes {{t "key"}} from the committed translations, falling back es-MX → es → en', async () => {
    const ws = await createWorkspaceFixture(t());
    const tpl = templates(t, ws);
    await tpl.translation('en.json', { greeting: 'Hello', bye: 'Bye', nested: { deep: 'Deep' } });
    await tpl.translation('es.json', { greeting: 'Hola' });
    await tpl.translation('es-MX.json', { greeting: '¡Qué onda' });
    await tpl.translation('billing.es.json', { due: 'Vence' });
    await tpl.define('welcome', [
      {
        channel: 'slack',
        id: 'default',
        content: {
          text: '{{t "greeting"}} {{name}}, {{t "bye"}} {{t "nested.deep"}} {{t "billing:due"}} {{t "unknown.key"}}',
        },
      },
    ]);
    const text = async (locale: string | null) => {
      const outcome = await renderTemplate(
        t().db,
        request(ws, {
          channel: 'slack',
          locale,
          context: { data: { name: 'Ana' }, $recipient: {}, $actor: null, $brand: null },
        }),
      );
      return outcome.ok ? outcome.content.text : outcome.reason;
    };
    expect(await text('es-MX')).toBe('¡Qué onda Ana, Bye Deep Vence unknown.key');
    expect(await text('es')).toBe('Hola Ana, Bye Deep Vence unknown.key');
    expect(await text('fr')).toBe('Hello Ana, Bye Deep billing:due unknown.key');
  });

  it('fails the message, not the caller, when the template is missing, has no variant or fails to render', async () => {
    const ws = await createWorkspaceFixture(t());
    await templates(t, ws).define('welcome', [
      { channel: 'email', id: 'default', content: { subject: 'S', html: '{{unknownHelper name}}' } },
      { channel: 'sms', id: 'acme', tenant_id: 'acme', content: { text: 'x' } },
    ]);
    // A render failure also names its variant and place (docs/runs.md, the preview's 400).
    expect(await renderTemplate(t().db, request(ws))).toMatchObject({
      ok: false,
      reason: 'template \'welcome\' variant email:default failed to render: Missing helper: "unknownHelper"',
    });
    expect(await renderTemplate(t().db, request(ws, { templateSlug: 'nope' }))).toEqual({
      ok: false,
      reason: "template 'nope' not found or never committed",
    });
    expect(await renderTemplate(t().db, request(ws, { channel: 'whatsapp' }))).toEqual({
      ok: false,
      reason: "template 'welcome' has no whatsapp variant for this recipient",
    });
    const other = await createWorkspaceFixture(t());
    expect(await renderTemplate(t().db, request(other))).toMatchObject({ ok: false });
  });

  it('renders a new live version after a commit, and a cached version in one statement', async () => {
    const ws = await createWorkspaceFixture(t());
    const tpl = templates(t, ws);
    await tpl.define('welcome', [{ channel: 'sms', id: 'default', content: { text: 'v1 {{n}}' } }]);
    const sms = request(ws, {
      channel: 'sms',
      context: { data: { n: 1 }, $recipient: {}, $actor: null, $brand: null },
    });
    expect(await renderTemplate(t().db, sms)).toMatchObject({ ok: true, content: { text: 'v1 1' } });
    t().queries.reset();
    expect(await renderTemplate(t().db, sms)).toMatchObject({ ok: true, content: { text: 'v1 1' } });
    expect(t().queries.count).toBe(1);
    await tpl.define('welcome', [{ channel: 'sms', id: 'default', content: { text: 'v2 {{n}}' } }]);
    expect(await renderTemplate(t().db, sms)).toMatchObject({
      ok: true,
      content: { text: 'v2 1' },
      template: { version_no: 2 },
    });
  });
});
