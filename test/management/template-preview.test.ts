import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { baseCall, engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

/** The template preview (docs/runs.md, docs/spec/product.md §3): what a delivery would carry, rendered by Herald. */
describe('the template preview', () => {
  const t = useTestApp({}, { engine: { renderer: 'templates' } });

  it('renders exactly what a delivery carries, the draft beside the live version, and names a template error', async () => {
    const ws = await engineWorkspace(t);
    const management = (method: 'POST' | 'PATCH', path: string, body: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}${path}`,
        headers: ws.management,
        payload: body as object,
      });
    const preview = (body: object, slug = 'shipped') =>
      t().app.inject({
        method: 'POST',
        url: `/management/v1/${ws.slug}/template/${slug}/preview/`,
        headers: ws.management,
        payload: body,
      });
    expect(
      (await management('POST', '/template/shipped/', { name: 'Shipped', enabled_channels: ['inbox'] })).statusCode,
    ).toBeLessThan(300);
    const variant = (text: string) =>
      management('POST', '/template/shipped/channel/inbox/variant/default/', {
        locale: 'en',
        content: { header: 'Order {{order.id}} shipped', text },
      });
    expect((await variant('Hi {{$recipient.name}} <b>{{order.note}}</b>')).statusCode).toBeLessThan(300);
    expect((await management('PATCH', '/template/shipped/commit/', {})).statusCode).toBeLessThan(300);
    await baseCall(t, ws)('POST', '/v1/user/tara/', { name: 'Tara', $locale: 'en' });
    await liveWorkflow(t, ws, 'ship', [node('send_inbox', { template: 'shipped' })]);
    const data = { order: { id: 'A-7', note: 'fragile & <heavy>' } };
    const { message_id } = (await trigger(t, ws, { workflow: 'ship', recipients: ['tara'], data })).json();
    const [delivered] = await settledMessages(t, ws, message_id, 1);

    const live = await preview({ channel: 'inbox', mode: 'live', distinct_id: 'tara', data });
    expect(live.statusCode, live.body).toBe(200);
    expect(live.json()).toEqual({ channel: 'inbox', variant_id: 'default', locale: 'en', content: delivered!.content });

    // The draft is edited: the draft preview shows it, the live one still what deliveries send.
    expect((await variant('Hey {{$recipient.name}}, order {{order.id}}')).statusCode).toBeLessThan(300);
    const draft = await preview({ channel: 'inbox', distinct_id: 'tara', data });
    expect(draft.json().content).toMatchObject({ text: 'Hey Tara, order A-7' });
    expect((await preview({ channel: 'inbox', mode: 'live', distinct_id: 'tara', data })).json().content).toEqual(
      delivered!.content,
    );

    // A draft that does not parse: a 400 naming the variant, the field and the place.
    expect((await variant('Hello\n  {{#if vip}} gold {{/each}}')).statusCode).toBeLessThan(300);
    const broken = await preview({ channel: 'inbox', data });
    expect(broken.statusCode).toBe(400);
    expect(broken.json().detail).toEqual({ variant_id: 'default', field: 'text', line: 2, column: 6 });
    expect(broken.json().message).toContain("variant 'default', text, line 2, column 6");

    // Unknown template, user and variant: 404, 404, 400; nothing was stored by any preview.
    expect((await preview({ channel: 'inbox' }, 'nowhere')).statusCode).toBe(404);
    expect((await preview({ channel: 'inbox', mode: 'live', distinct_id: 'nobody' })).statusCode).toBe(404);
    expect((await preview({ channel: 'inbox', mode: 'live', variant_id: 'other' })).statusCode).toBe(400);
    expect((await preview({ channel: 'carrier_pigeon' })).statusCode).toBe(400);
    const stored = await t()
      .db.selectFrom('messages')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(stored).toHaveLength(1);
  });
});
