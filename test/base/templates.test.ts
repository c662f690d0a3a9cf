import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

const OPERATOR = { name: 'Test Operator', email: 'ops@example.com' };

describe('GET /v1/template/…: templates on the base surface (API key)', () => {
  const t = useTestApp();

  async function seed(ws: WorkspaceFixture) {
    const manage = (method: 'POST' | 'PATCH', path: string, payload: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}/template/${path}`,
        headers: ws.management,
        payload: payload as object,
      });
    await manage('POST', 'order-shipped/', {
      name: 'Order shipped',
      tags: ['orders'],
      enabled_channels: ['email', 'inbox'],
    });
    await manage('POST', 'order-shipped/channel/email/variant/default/', {
      locale: 'en',
      content: { subject: 'Shipped {{id}}', html: '<p>{{id}}</p>' },
    });
    await manage('POST', 'order-shipped/channel/email/variant/es/', {
      locale: 'es',
      tenant_id: 'acme',
      content: { subject: 'Enviado {{id}}', html: '<p>{{id}}</p>' },
    });
    await manage('POST', 'order-shipped/channel/inbox/variant/default/', {
      locale: 'en',
      content: { text: 'Shipped' },
    });
    expect((await manage('PATCH', 'order-shipped/commit/', {})).statusCode).toBe(200);
    // A later draft change is not what the base surface shows.
    await manage('POST', 'order-shipped/channel/inbox/variant/default/', { locale: 'en', content: { text: 'Draft' } });
    await manage('POST', 'draft-only/', { name: 'Draft only', enabled_channels: ['sms'] });
  }

  const get = (ws: WorkspaceFixture, url: string) => t().app.inject({ method: 'GET', url, headers: ws.base });

  it('lists templates, fetches one, and one channel with the live content', async () => {
    const ws = await createWorkspaceFixture(t());
    await seed(ws);
    const list = await get(ws, '/v1/template/');
    expect(list.statusCode).toBe(200);
    expect(list.json().meta).toEqual({ count: 2, limit: 20, offset: 0 });
    expect(list.json().results.map((r: { slug: string; is_active: boolean }) => [r.slug, r.is_active])).toEqual([
      ['draft-only', false],
      ['order-shipped', true],
    ]);
    expect((await get(ws, '/v1/template/?is_active=true')).json().results).toHaveLength(1);
    expect((await get(ws, '/v1/template/?is_active=false')).json().results[0].slug).toBe('draft-only');
    expect((await get(ws, '/v1/template/?has_channels_any=sms,slack')).json().results[0].slug).toBe('draft-only');
    expect((await get(ws, '/v1/template/?has_tag_ids_any=orders')).json().results[0].slug).toBe('order-shipped');
    expect((await get(ws, '/v1/template/?is_archived=true')).json().results).toEqual([]);

    const one = await get(ws, '/v1/template/order-shipped/');
    expect(one.json()).toMatchObject({
      name: 'Order shipped',
      slug: 'order-shipped',
      is_active: true,
      default_language: { name: 'English', slug: 'en' },
      enabled_languages: ['en', 'es'],
      updated_by: OPERATOR,
      tags: [{ id: 'orders', name: 'orders' }],
      channels: [
        {
          channel: { name: 'Email', slug: 'email', is_template_approval_needed: false },
          is_active: true,
          versions: [],
        },
        { channel: { slug: 'inbox' }, is_active: true },
      ],
    });

    const inbox = await get(ws, '/v1/template/order-shipped/channel/inbox/');
    expect(inbox.statusCode).toBe(200);
    expect(inbox.json().versions).toHaveLength(1);
    expect(inbox.json().versions[0]).toMatchObject({ status: 'active', version_tag: '1', published_languages: ['en'] });
    expect(inbox.json().versions[0].templates[0]).toMatchObject({
      variant_id: 'default',
      language: { name: 'English', slug: 'en' },
      content: { text: 'Shipped' },
    });
    const email = (await get(ws, '/v1/template/order-shipped/channel/email/')).json();
    expect(email.versions[0].templates.map((v: { tenant_id: string | null }) => v.tenant_id)).toEqual([null, 'acme']);
  });

  it('answers 404 for what is not there and 400 for what cannot be', async () => {
    const ws = await createWorkspaceFixture(t());
    await seed(ws);
    expect((await get(ws, '/v1/template/nope/')).statusCode).toBe(404);
    expect((await get(ws, '/v1/template/order-shipped/channel/sms/')).statusCode).toBe(404);
    expect((await get(ws, '/v1/template/order-shipped/channel/fax/')).statusCode).toBe(400);
    expect((await get(ws, '/v1/template/?is_active=maybe')).statusCode).toBe(400);
    const other = await createWorkspaceFixture(t());
    expect((await get(other, '/v1/template/order-shipped/')).statusCode).toBe(404);
    expect((await get(other, '/v1/template/')).json().meta.count).toBe(0);
  });
});
