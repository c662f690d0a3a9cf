import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
import { baseCall, engineWorkspace, inbox, liveWorkflow, settledMessages, trigger } from '../support/engine-drivers.js';

const ORDER = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['order_id', 'amount'],
  properties: {
    order_id: { type: 'string' },
    amount: { type: 'number', minimum: 0 },
    customer: { type: 'object', properties: { email: { type: 'string', format: 'email' } } },
  },
};

describe('payload schemas checked at trigger', () => {
  const t = useTestApp({}, { engine: {} });

  const executions = (workspaceId: number) =>
    t().db.selectFrom('executions').select(['id', 'source']).where('workspace_id', '=', workspaceId).execute();

  it('refuses an API trigger whose data breaks the workflow’s linked schema with 400 naming the field; nothing starts', async () => {
    const ws = await engineWorkspace(t);
    const { inject } = configClient(t, ws);
    await inject('POST', '/schema/order/?commit=true', { name: 'Order', json_schema: ORDER });
    await inject('POST', '/schema/draft-only/', { name: 'Draft', json_schema: { type: 'object' } });
    const saved = await liveWorkflow(t, ws, 'receipt', [inbox()], { payload_schema: { schema: 'order' } });
    expect(saved.payload_schema).toEqual({ schema: 'order', version_no: null });
    // The link is shown on the reads and refused when it names nothing committed.
    expect((await configClient(t, ws).getWorkflow('receipt', '?mode=live')).json().payload_schema).toEqual({
      schema: 'order',
      version_no: null,
    });
    for (const [link, reason] of [
      [{ schema: 'nope' }, "payload_schema: schema 'nope' not found"],
      [{ schema: 'draft-only' }, "payload_schema: schema 'draft-only' has never been committed"],
      [{ schema: 'order', version_no: 9 }, "payload_schema: schema 'order' has no version 9"],
    ] as const) {
      const refused = await configClient(t, ws).postWorkflow('linked-badly', {
        name: 'x',
        category: 'order-updates',
        trigger_type: 'api',
        tree: { nodes: [inbox()] },
        payload_schema: link,
      });
      expect([refused.statusCode, refused.json().message]).toEqual([400, reason]);
    }

    const bad = await trigger(t, ws, {
      workflow: 'receipt',
      recipients: ['ada'],
      data: { amount: -1, customer: { email: 'not-an-email' } },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      status: 'fail',
      message:
        'data.order_id is required; data.amount must be >= 0; data.customer.email must match format "email" (payload schema \'order\', version 1)',
    });
    const missingData = await trigger(t, ws, { workflow: 'receipt', recipients: ['ada'] });
    expect(missingData.json().message).toContain('data.order_id is required');
    expect(await executions(ws.workspaceId)).toEqual([]);

    // In a bulk trigger each record is judged alone.
    const bulk = await trigger(t, ws, [
      { workflow: 'receipt', recipients: ['ada'], data: { order_id: 'A1', amount: 5 } },
      { workflow: 'receipt', recipients: ['bob'], data: { order_id: 7, amount: 5 }, $idempotency_key: 'k-bad' },
    ]);
    expect(bulk.statusCode).toBe(207);
    const [good, wrong] = bulk.json().records;
    expect(good).toMatchObject({ status: 'success', status_code: 202 });
    expect(wrong).toEqual({
      status: 'error',
      status_code: 400,
      error: {
        type: 'validation_error',
        message: "data.order_id must be string (payload schema 'order', version 1)",
      },
    });
    await settledMessages(t, ws, good.message_id, 1);
    // The refused record claimed no idempotency key: a corrected retry with it is accepted.
    const retried = await trigger(t, ws, {
      workflow: 'receipt',
      recipients: ['bob'],
      data: { order_id: '7', amount: 5 },
      $idempotency_key: 'k-bad',
    });
    expect(retried.statusCode).toBe(202);
  });

  it('follows the live version unless the link pins one', async () => {
    const ws = await engineWorkspace(t);
    const { inject } = configClient(t, ws);
    await inject('POST', '/schema/order/?commit=true', { name: 'Order', json_schema: ORDER });
    await inject('POST', '/schema/order/?commit=true', { name: 'Order', json_schema: { ...ORDER, required: [] } });
    await liveWorkflow(t, ws, 'live-link', [inbox()], { payload_schema: { schema: 'order' } });
    await liveWorkflow(t, ws, 'pinned-link', [inbox()], { payload_schema: { schema: 'order', version_no: 1 } });
    expect((await trigger(t, ws, { workflow: 'live-link', recipients: ['ada'], data: {} })).statusCode).toBe(202);
    const pinned = await trigger(t, ws, { workflow: 'pinned-link', recipients: ['ada'], data: {} });
    expect(pinned.statusCode).toBe(400);
    expect(pinned.json().message).toBe(
      "data.order_id is required; data.amount is required (payload schema 'order', version 1)",
    );
  });

  it('refuses an event whose registered event links a schema it breaks (400 naming the record’s field), storing nothing', async () => {
    const ws = await engineWorkspace(t);
    const { inject } = configClient(t, ws);
    await inject('POST', '/schema/order/?commit=true', { name: 'Order', json_schema: ORDER });
    await inject('POST', '/event/', { name: 'Order Placed', payload_schema: { schema: 'order' } });
    await liveWorkflow(t, ws, 'on-order', [inbox()], { trigger_type: 'event', trigger_events: ['Order Placed'] });
    const call = baseCall(t, ws);
    const refused = await call('POST', '/event/', [
      { distinct_id: 'ada', event: 'Unlinked', properties: {} },
      { distinct_id: 'ada', event: 'Order Placed', properties: { order_id: 'A1', amount: 'ten' } },
    ]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 400,
      message: "[1].properties.amount must be number (payload schema 'order', version 1)",
      detail: { '[1].properties.amount': 'must be number' },
    });
    const stored = await t().db.selectFrom('events').select('id').where('workspace_id', '=', ws.workspaceId).execute();
    expect(stored).toEqual([]);
    expect(await executions(ws.workspaceId)).toEqual([]);

    const accepted = await call('POST', '/event/', {
      distinct_id: 'ada',
      event: 'Order Placed',
      properties: { order_id: 'A1', amount: 10 },
    });
    expect(accepted.statusCode).toBe(202);
    expect(await executions(ws.workspaceId)).toEqual([{ id: expect.any(String), source: 'event' }]);
  });
});
