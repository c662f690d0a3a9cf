import { Workflow, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { sdkFor } from '../support/sdk.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  messages,
  node,
  settledMessages,
  trigger,
  waitFor,
} from '../support/engine-drivers.js';

describe('messages', () => {
  const t = useTestApp({}, { engine: {} });

  it('lists with every filter and cursor pages, and reads one message', async () => {
    const ws = await engineWorkspace(t);
    const call = baseCall(t, ws);
    await call('POST', '/v1/tenant/acme/', { tenant_name: 'Acme' });
    await call('POST', '/v1/object/team/t1/', {});
    await liveWorkflow(t, ws, 'both', [inbox('note'), node('send_email', { template: 'mail' })]);
    await liveWorkflow(t, ws, 'news', [inbox('news')], { category: 'offers' });
    const first = (
      await trigger(t, ws, { workflow: 'both', recipients: ['ann', 'ben'], $idempotency_key: 'k-1' })
    ).json().message_id;
    const second = (await trigger(t, ws, { workflow: 'news', recipients: ['ann'], tenant_id: 'acme' })).json()
      .message_id;
    const third = (await trigger(t, ws, { workflow: 'news', recipients: [{ object_type: 'team', id: 't1' }] })).json()
      .message_id;
    await settledMessages(t, ws, first, 4);
    await settledMessages(t, ws, second, 1);
    await settledMessages(t, ws, third, 1);
    const ids = async (query: string) => (await messages(t, ws, query)).results.map((m) => m.message_id);
    const all = (await messages(t, ws, '?limit=100')).results;
    expect(all).toHaveLength(6);
    const count = async (query: string) => (await messages(t, ws, query)).meta.count;
    expect(await count('?status[]=delivered')).toBe(3);
    expect(await count('?status[]=delivered&status[]=not_to_be_triggered')).toBe(6);
    expect(await count('?channel=email')).toBe(2);
    expect(await count('?recipient_id[]=ann')).toBe(3);
    expect(await count('?recipient_id[]=ann&recipient_id[]=ben')).toBe(5);
    expect(await count('?category[]=offers')).toBe(2);
    expect(await count('?workflow_slug=both')).toBe(4);
    expect(await count(`?execution_id=${first}`)).toBe(4);
    expect(await count('?idempotency_key=k-1')).toBe(4);
    expect(await count('?tenant_id=acme')).toBe(1);
    expect(all.every((m) => m.is_campaign === false)).toBe(true);
    expect(await count('?is_campaign=true')).toBe(0);
    expect(await count('?is_campaign=false')).toBe(6);
    expect(await count('?object_type=team&object_id=t1')).toBe(1);
    // One recipient's run of `both` (workers take runs in any order, so not simply the oldest message).
    const runId = (await messages(t, ws, '?workflow_slug=both')).results[0]!.execution_id;
    expect(await count(`?execution_id=${runId}`)).toBe(2);
    expect(await ids(`?message_id=${all[2]!.message_id}`)).toEqual([all[2]!.message_id]);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await count(`?created_at_gte=${encodeURIComponent(future)}`)).toBe(0);
    expect(await count(`?created_at_lte=${encodeURIComponent(future)}`)).toBe(6);
    expect((await call('GET', '/v1/message/?status[]=lost')).statusCode).toBe(400);

    const page1 = await messages(t, ws, '?limit=4');
    expect(page1.meta).toMatchObject({ count: 6, limit: 4, has_next: true, has_prev: false });
    const page2 = await messages(t, ws, `?limit=4&after=${page1.meta.after}`);
    expect(page2.results.map((m) => m.message_id)).toEqual(all.slice(4).map((m) => m.message_id));
    expect(page2.meta).toMatchObject({ has_next: false, has_prev: true });

    const one = await call('GET', `/v1/message/${all[0]!.message_id}/`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(all[0]);
    expect((await call('GET', '/v1/message/nope/')).statusCode).toBe(404);
  });

  it('takes engagement in bulk: status only moves forward, read and archived toggle, per-item results', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'both', [inbox('note'), node('send_email', { template: 'mail' })]);
    const id = (await trigger(t, ws, { workflow: 'both', recipients: ['cat'] })).json().message_id;
    const settled = await settledMessages(t, ws, id, 2);
    const delivered = settled.find((m) => m.status === 'delivered')!.message_id;
    const refused = settled.find((m) => m.status === 'not_to_be_triggered')!.message_id;
    const call = baseCall(t, ws);
    const patch = (items: object[]) => call('PATCH', '/v1/bulk/message/', { messages: items });
    const response = await patch([
      { message_id: delivered, action: 'clicked' },
      { message_id: delivered, action: 'seen' },
      { message_id: delivered, action: 'read' },
      { message_id: delivered, action: 'archived' },
      { message_id: 'missing', action: 'seen' },
      { message_id: refused, action: 'seen' },
    ]);
    expect(response.statusCode).toBe(202);
    expect(response.json().records.map((r: { status_code: number }) => r.status_code)).toEqual([
      202, 202, 202, 202, 404, 422,
    ]);
    const after = (await call('GET', `/v1/message/${delivered}/`)).json();
    expect(after).toMatchObject({ status: 'clicked', is_read: true, is_archived: true });
    expect(after.seen_at).not.toBeNull();
    expect(after.clicked_at).not.toBeNull();
    await patch([
      { message_id: delivered, action: 'unread' },
      { message_id: delivered, action: 'unarchived' },
    ]);
    expect((await call('GET', `/v1/message/${delivered}/`)).json()).toMatchObject({
      status: 'clicked',
      is_read: false,
      is_archived: false,
      archived_at: null,
    });
    expect((await patch([{ message_id: delivered, action: 'shred' }])).statusCode).toBe(400);
  });

  it('works with the official SDK: triggers (one, bulk, legacy) and messages, over signed requests', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'sdk-flow', [inbox('sdk')]);
    const supr = await sdkFor(t(), ws);
    const single = await supr.workflows.trigger(
      new WorkflowTriggerRequest(
        { workflow: 'sdk-flow', recipients: ['sdk-user'], data: { text: 'via sdk' } },
        { idempotency_key: 'sdk-1' },
      ),
    );
    expect(single).toMatchObject({ success: true, status_code: 202 });
    const { message_id } = JSON.parse((single as unknown as { message: string }).message);
    await settledMessages(t, ws, message_id, 1);

    const bulk = supr.workflows.bulk_trigger_instance();
    bulk.append(
      new WorkflowTriggerRequest({ workflow: 'sdk-flow', recipients: ['bulk-1'] }),
      new WorkflowTriggerRequest({ workflow: 'sdk-flow', recipients: ['bulk-2'] }),
    );
    const bulkResult = await bulk.trigger();
    expect(bulkResult).toMatchObject({ status: 'success', total: 2, success: 2, failure: 0 });

    const legacy = await supr.trigger_workflow(
      new Workflow({
        name: 'sdk-legacy',
        template: 'legacy',
        notification_category: 'order-updates',
        users: [{ distinct_id: 'legacy-user' }],
        delivery: { mandatory_channels: ['inbox'] },
      }),
    );
    expect(legacy).toMatchObject({ success: true, status_code: 202 });
    const legacyBulk = supr.bulk_workflows.new_instance();
    legacyBulk.append(
      new Workflow({
        name: 'sdk-legacy-bulk',
        template: 'legacy',
        notification_category: 'order-updates',
        users: [{ distinct_id: 'legacy-bulk-user' }],
        delivery: { mandatory_channels: ['inbox'] },
      }),
    );
    const legacyBulkResult = await legacyBulk.trigger();
    expect(legacyBulkResult).toMatchObject({ status: 'success', success: 1 });

    const listed = await waitFor(async () => {
      const page = await supr.messages.list({
        limit: 20,
        recipient_id: ['sdk-user', 'bulk-1', 'bulk-2', 'legacy-user', 'legacy-bulk-user'],
      });
      return page.results.length === 5 && page.results.every((m: { status: string }) => m.status === 'delivered')
        ? page
        : undefined;
    });
    const sdkMessage = listed.results.find(
      (m: { recipient: { distinct_id: string } }) => m.recipient.distinct_id === 'sdk-user',
    );
    expect(sdkMessage).toMatchObject({ idempotency_key: 'sdk-1', content: { text: 'via sdk' } });
    const updated = await supr.messages.bulk_update([{ message_id: sdkMessage.message_id, action: 'seen' }]);
    expect(updated.records).toEqual([{ message_id: sdkMessage.message_id, status_code: 202, error: null }]);
  });
});
