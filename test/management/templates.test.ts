import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

const OPERATOR = { name: 'Test Operator', email: 'ops@example.com' };

describe('/v2/{workspace}/template/: templates and variants, draft → commit', () => {
  const t = useTestApp();

  const client = async () => {
    const ws = await createWorkspaceFixture(t());
    const inject = (method: 'GET' | 'POST' | 'PATCH', path: string, payload?: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}/template/${path}`,
        headers: ws.management,
        ...(payload === undefined ? {} : { payload: payload as object }),
      });
    return { ws, inject };
  };

  it('creates a draft that live mode only sees once committed, with versions counting up', async () => {
    const { inject } = await client();
    const created = await inject('POST', 'order-shipped/', {
      name: 'Order shipped',
      description: 'tells the buyer',
      tags: ['orders'],
      enabled_channels: ['email', 'sms'],
    });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toEqual({
      slug: 'order-shipped',
      name: 'Order shipped',
      description: 'tells the buyer',
      tags: ['orders'],
      enabled_channels: ['email', 'sms'],
      status: 'draft',
      version_no: null,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      commit_message: null,
      created_at: expect.stringMatching(/\+00:00$/),
      updated_at: expect.stringMatching(/\+00:00$/),
      active_at: null,
      last_triggered_at: null,
      updated_by: OPERATOR,
      channels: [
        { channel: 'email', is_active: false, variants_count: 0 },
        { channel: 'sms', is_active: false, variants_count: 0 },
      ],
    });
    expect((await inject('GET', 'order-shipped/?mode=live')).statusCode).toBe(404);

    const email = await inject('POST', 'order-shipped/channel/email/variant/default/', {
      locale: 'en',
      content: { subject: 'Order {{order.id}}', html: '<p>Hi {{name}}</p>' },
    });
    expect(email.statusCode).toBe(200);
    expect(email.json()).toMatchObject({
      channel: 'email',
      id: 'default',
      locale: 'en',
      tenant_id: null,
      conditions: [],
      has_error: false,
      action: 'Added',
      approval_status: 'auto_approved',
      content: { subject: 'Order {{order.id}}', html: '<p>Hi {{name}}</p>' },
      errors: {},
    });
    await inject('POST', 'order-shipped/channel/sms/variant/default/', { locale: 'en', content: { text: 'Shipped' } });

    const committed = await inject('PATCH', 'order-shipped/commit/?commit_message=first', {});
    expect(committed.statusCode).toBe(200);
    expect(committed.json()).toMatchObject({
      status: 'active',
      version_no: 1,
      commit_message: 'first',
      active_at: expect.stringMatching(/\+00:00$/),
      channels: [
        { channel: 'email', is_active: true, variants_count: 1 },
        { channel: 'sms', is_active: true, variants_count: 1 },
      ],
    });
    expect((await inject('GET', 'order-shipped/?mode=live')).json()).toEqual(committed.json());
    expect((await inject('GET', 'order-shipped/')).json().hash).toBe(committed.json().hash);

    const again = await inject('PATCH', 'order-shipped/commit/', {});
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe("template 'order-shipped' has no changes to commit since version 1");

    await inject('POST', 'order-shipped/channel/sms/variant/default/', {
      locale: 'en',
      content: { text: 'On its way' },
    });
    const variants = (await inject('GET', 'order-shipped/variant/')).json();
    expect(variants.meta.count).toBe(2);
    expect(variants.results.map((v: { channel: string; action: string }) => [v.channel, v.action])).toEqual([
      ['email', 'Unchanged'],
      ['sms', 'Updated'],
    ]);
    expect((await inject('GET', 'order-shipped/channel/sms/variant/default/?mode=live')).json().content).toEqual({
      text: 'Shipped',
    });
    expect((await inject('PATCH', 'order-shipped/commit/', null)).json().version_no).toBe(2);
    expect((await inject('GET', 'order-shipped/channel/sms/variant/default/?mode=live')).json().content).toEqual({
      text: 'On its way',
    });

    const list = await inject('GET', '?mode=live&q=SHIPPED');
    expect(list.json().meta).toEqual({ count: 1, limit: 20, offset: 0 });
    expect(list.json().results[0]).toMatchObject({ slug: 'order-shipped', version_no: 2 });
    expect((await inject('GET', '?q=nothing-like-it')).json().meta.count).toBe(0);
  });

  it('refuses to commit invalid content with a 400 naming each variant and field', async () => {
    const { inject } = await client();
    await inject('POST', 'broken/', { name: 'Broken', enabled_channels: ['email', 'inbox', 'slack'] });
    await inject('POST', 'broken/channel/email/variant/default/', { locale: 'en', content: { html: '{{#if x}}' } });
    await inject('POST', 'broken/channel/inbox/variant/es/', {
      locale: 'es',
      content: { text: 'Hola', actions: [{ name: 'Ver' }] },
    });
    const detail = await inject('GET', 'broken/channel/email/variant/default/');
    expect(detail.json()).toMatchObject({ has_error: true, errors: { subject: ['missing'] } });
    const refused = await inject('PATCH', 'broken/commit/', {});
    expect(refused.statusCode).toBe(400);
    const { errors } = refused.json().detail;
    expect(errors).toEqual([
      'slack: no variant',
      'email:default: subject missing',
      expect.stringMatching(/^email:default: html does not compile: Parse error/),
      'inbox:es: actions[0].url missing',
    ]);
    expect((await inject('GET', 'broken/?mode=live')).statusCode).toBe(404);
  });

  it('answers 4xx, never 500, to bad input', async () => {
    const { inject } = await client();
    expect((await inject('POST', 'Bad Slug/', { name: 'x' })).statusCode).toBe(400);
    expect((await inject('POST', 'ok/', { name: 'x', enabled_channels: ['fax'] })).statusCode).toBe(400);
    await inject('POST', 'ok/', { name: 'x', enabled_channels: ['sms'] });
    const disabled = await inject('POST', 'ok/channel/email/variant/default/', { locale: 'en', content: {} });
    expect(disabled.statusCode).toBe(400);
    expect(disabled.json().message).toBe("channel 'email' is not enabled on template 'ok'");
    expect((await inject('POST', 'ok/channel/sms/variant/default/', { locale: 'EN!', content: {} })).statusCode).toBe(
      400,
    );
    expect((await inject('GET', 'missing/')).statusCode).toBe(404);
    expect((await inject('PATCH', 'missing/commit/', {})).statusCode).toBe(404);
    expect((await inject('GET', 'ok/channel/sms/variant/nope/')).statusCode).toBe(404);
    expect((await inject('GET', 'ok/?mode=sometimes')).statusCode).toBe(400);
  });

  it('stores mock data and shows what a template would see', async () => {
    const { inject } = await client();
    await inject('POST', 'digest/', { name: 'Digest', enabled_channels: ['email'] });
    const updated = await inject('PATCH', 'digest/mock_data/', {
      payload: { order_id: 'ORD-1' },
      tenant_id: 'acme',
      is_batch: true,
      batch_count: 2,
      recipient_distinct_id: 'user-1',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().transformed_data).toEqual({
      order_id: 'ORD-1',
      $brand: { brand_id: 'acme' },
      $recipient: { distinct_id: 'user-1' },
      $user: { distinct_id: 'user-1' },
      $actor: {},
      $batched_events: [{ order_id: 'ORD-1' }, { order_id: 'ORD-1' }],
      $batched_events_count: 2,
    });
    expect((await inject('GET', 'digest/mock_data/')).json()).toEqual(updated.json());
    expect((await inject('GET', 'digest/mock_data/?mode=live')).json().data.payload).toEqual({});
  });

  it("keeps each workspace's templates apart", async () => {
    const a = await client();
    const b = await client();
    await a.inject('POST', 'secret-template/', { name: 'A only', enabled_channels: ['sms'] });
    expect((await b.inject('GET', 'secret-template/')).statusCode).toBe(404);
    expect((await b.inject('GET', '')).json().meta.count).toBe(0);
    // The same slug in another workspace is another template.
    await b.inject('POST', 'secret-template/', { name: 'B only', enabled_channels: ['email'] });
    expect((await a.inject('GET', 'secret-template/')).json()).toMatchObject({
      name: 'A only',
      enabled_channels: ['sms'],
    });
  });
});
