import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { baseCall, engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

/** The engine with the template store's renderer: what reaches the recipient is the committed template, rendered. */
describe('deliveries rendered from templates', () => {
  const t = useTestApp({}, { engine: { renderer: 'templates' } });

  it('renders the live template with the data and the recipient; a missing template fails its message only', async () => {
    const ws = await engineWorkspace(t);
    const management = (method: 'POST' | 'PATCH', path: string, body: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}${path}`,
        headers: ws.management,
        payload: body as object,
      });
    expect(
      (await management('POST', '/template/shipped/', { name: 'Shipped', enabled_channels: ['inbox'] })).statusCode,
    ).toBeLessThan(300);
    expect(
      (
        await management('POST', '/template/shipped/channel/inbox/variant/default/', {
          locale: 'en',
          content: { header: 'Order {{order.id}} shipped', text: 'Hi {{$recipient.name}}' },
        })
      ).statusCode,
    ).toBeLessThan(300);
    const commit = await management('PATCH', '/template/shipped/commit/', {});
    expect(commit.statusCode, commit.body).toBeLessThan(300);
    await baseCall(t, ws)('POST', '/v1/user/tara/', { name: 'Tara' });
    await liveWorkflow(t, ws, 'ship', [
      node('send_inbox', { template: 'shipped' }),
      node('send_inbox', { template: 'nowhere' }),
    ]);
    // A commit refuses a template that does not exist (issue #32): 'nowhere' goes after the commit, as in a
    // workflow committed before that rule, so the render is what finds it missing.
    await t()
      .db.deleteFrom('templates')
      .where('workspace_id', '=', ws.workspaceId)
      .where('slug', '=', 'nowhere')
      .execute();
    const { message_id } = (
      await trigger(t, ws, { workflow: 'ship', recipients: ['tara'], data: { order: { id: 'A-7' } } })
    ).json();
    const settled = await settledMessages(t, ws, message_id, 2);
    const byRef = Object.fromEntries(settled.map((m) => [m.workflow.node_ref, m]));
    expect(byRef.send_inbox_1).toMatchObject({
      status: 'delivered',
      content: { header: 'Order A-7 shipped', text: 'Hi Tara' },
      template: { slug: 'shipped', version_no: 1, variant_id: 'default' },
    });
    expect(byRef.send_inbox_2).toMatchObject({ status: 'trigger_failed', reason: 'render_failed' });
    expect(byRef.send_inbox_2.error.message).toContain("template 'nowhere'");
  });
});
