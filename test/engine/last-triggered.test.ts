import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import { iso } from '../../src/schemas/common.js';
import { baseCall, engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

describe('last_executed_at (workflows) and last_triggered_at (templates)', () => {
  const t = useTestApp({}, { engine: { renderer: 'templates' } });

  it('are set when a trigger runs the workflow and a delivery uses the template, and shown on the reads', async () => {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    const management = (method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}${path}`,
        headers: ws.management,
        ...(body === undefined ? {} : { payload: body as object }),
      });
    await management('POST', '/template/note/', { name: 'Note', enabled_channels: ['inbox'] });
    await management('POST', '/template/note/channel/inbox/variant/default/', {
      locale: 'en',
      content: { header: 'Note', text: 'hi' },
    });
    expect((await management('PATCH', '/template/note/commit/', {})).statusCode).toBeLessThan(300);
    await management('POST', '/template/unused/', { name: 'Unused', enabled_channels: ['inbox'] });
    await liveWorkflow(t, ws, 'noted', [node('send_inbox', { template: 'note' })]);
    await liveWorkflow(t, ws, 'idle', [node('send_inbox', { template: 'note' })]);

    expect((await config.getWorkflow('noted')).json().last_executed_at).toBeNull();
    expect((await management('GET', '/template/note/')).json().last_triggered_at).toBeNull();

    const before = Date.now();
    const response = await trigger(t, ws, { workflow: 'noted', recipients: ['ada'] });
    const accepted = await t()
      .db.selectFrom('executions')
      .select('created_at')
      .where('id', '=', response.json().message_id)
      .executeTakeFirstOrThrow();
    await settledMessages(t, ws, response.json().message_id, 1);
    const after = Date.now();

    // The workflow: the time its trigger was accepted, in draft and live reads and in the list.
    for (const mode of ['draft', 'live'])
      expect((await config.getWorkflow('noted', `?mode=${mode}`)).json().last_executed_at).toBe(
        iso(accepted.created_at),
      );
    const listed = (await config.inject('GET', '/workflow/?mode=live')).json().results;
    expect(listed.find((w: { slug: string }) => w.slug === 'noted').last_executed_at).toBe(iso(accepted.created_at));
    expect(listed.find((w: { slug: string }) => w.slug === 'idle').last_executed_at).toBeNull();

    // The template: when a delivery rendered it, on the management and base reads.
    const template = (await management('GET', '/template/note/')).json();
    const at = Date.parse(template.last_triggered_at);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(after + 1000);
    expect((await baseCall(t, ws)('GET', '/v1/template/note/')).json().last_triggered_at).toBe(
      template.last_triggered_at,
    );
    expect((await management('GET', '/template/unused/')).json().last_triggered_at).toBeNull();

    // A later trigger moves the workflow's time forward.
    const second = await trigger(t, ws, { workflow: 'noted', recipients: ['bob'] });
    await settledMessages(t, ws, second.json().message_id, 1);
    const later = (await config.getWorkflow('noted')).json().last_executed_at;
    expect(Date.parse(later)).toBeGreaterThan(accepted.created_at.getTime());
  });
});
