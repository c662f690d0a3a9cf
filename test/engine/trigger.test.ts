import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { configClient } from '../support/config.js';
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

describe('triggers', () => {
  const t = useTestApp({}, { engine: {} });

  it('accepts a trigger with 202 and delivers an inbox message to the user', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'welcome', [inbox()]);
    const response = await trigger(t, ws, { workflow: 'welcome', recipients: ['ada'], data: { text: 'hi' } });
    expect(response.statusCode).toBe(202);
    const { message_id, status } = response.json();
    expect(status).toBe('success');
    const [message] = await settledMessages(t, ws, message_id, 1);
    expect(message).toMatchObject({
      parent_execution_id: message_id,
      channel: 'inbox',
      status: 'delivered',
      recipient: { $type: 'user', distinct_id: 'ada' },
      channel_identity: 'ada',
      workflow: { slug: 'welcome', node_ref: 'send_inbox_1' },
      content: { header: 'Hello ada', text: 'hi' },
      template: { slug: 'welcome', version_no: 1, variant_id: 'default' },
      category: 'order-updates',
      tenant_id: 'default',
    });
    expect(message!.delivered_at).not.toBeNull();
  });

  it('answers 404 {status: fail} for an unknown, disabled or never committed workflow, an unknown object or tenant', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'off', [inbox()]);
    const config = configClient(t, ws);
    await config.inject('PATCH', '/workflow/off/enable/', { is_enabled: false });
    await config.postWorkflow('draft-only', {
      name: 'd',
      category: 'order-updates',
      trigger_type: 'api',
      tree: { nodes: [inbox()] },
    });
    for (const slug of ['nope', 'off', 'draft-only']) {
      const response = await trigger(t, ws, { workflow: slug, recipients: ['ada'] });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ status: 'fail', message: `workflow '${slug}' not found` });
    }
    await liveWorkflow(t, ws, 'on', [inbox()]);
    const object = await trigger(t, ws, { workflow: 'on', recipients: [{ object_type: 'team', id: 'ghost' }] });
    expect(object.statusCode).toBe(404);
    expect(object.json()).toEqual({ status: 'fail', message: "object 'team/ghost' not found" });
    const tenant = await trigger(t, ws, { workflow: 'on', recipients: ['ada'], tenant_id: 'acme' });
    expect(tenant.json()).toEqual({ status: 'fail', message: "tenant 'acme' not found" });
    // Nothing was started by the refused triggers.
    expect((await messages(t, ws)).meta.count).toBe(0);
    const executions = await t()
      .db.selectFrom('executions')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(executions).toEqual([]);
  });

  it('answers 400 {status: fail} naming the field, and 413 over 800 KB', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'w', [inbox()]);
    const cases: [unknown, string][] = [
      [{ recipients: ['ada'] }, 'workflow is required'],
      [{ workflow: 'w' }, 'recipients is required'],
      [{ workflow: 'w', recipients: [] }, 'recipients must be a non-empty array'],
      [
        { workflow: 'w', recipients: [42] },
        'recipients[0] must be a distinct_id, a user {distinct_id, …} or an object {object_type, id}',
      ],
      [
        { workflow: 'w', recipients: Array.from({ length: 101 }, (_, i) => `u${i}`) },
        'recipients must hold at most 100 recipients',
      ],
      [{ workflow: 'w', recipients: ['ada'], data: [1] }, 'data must be an object'],
      [{ workflow: 'w', recipients: [{ object_type: 'team' }] }, 'recipients[0].id must be a non-empty string'],
      [
        { workflow: 'w', recipients: ['ada'], tenant_id: 'x'.repeat(65) },
        'tenant_id must be a string of 1 to 64 characters',
      ],
    ];
    for (const [body, message] of cases) {
      const response = await trigger(t, ws, body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.json()).toEqual({ status: 'fail', message });
    }
    const big = await trigger(t, ws, { workflow: 'w', recipients: ['ada'], data: { blob: 'x'.repeat(820 * 1024) } });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ status: 'fail' });
    const tooMany = await trigger(
      t,
      ws,
      Array.from({ length: 101 }, () => ({ workflow: 'w', recipients: ['ada'] })),
    );
    expect(tooMany.statusCode).toBe(400);
  });

  it('answers an array with 207 and a result per record, each record on its own', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'w', [inbox()]);
    const response = await trigger(t, ws, [
      { workflow: 'w', recipients: ['ada'] },
      { workflow: 'missing', recipients: ['bob'] },
      { workflow: 'w', recipients: [7] },
      { workflow: 'w', recipients: ['cyd'] },
    ]);
    expect(response.statusCode).toBe(207);
    const body = response.json();
    expect(body.status).toBe('success');
    expect(body.records.map((r: { status_code: number }) => r.status_code)).toEqual([202, 404, 400, 202]);
    expect(body.records[1]).toEqual({
      status: 'error',
      status_code: 404,
      error: { message: "workflow 'missing' not found", type: 'not_found' },
    });
    const [first, , , last] = body.records;
    await settledMessages(t, ws, first.message_id, 1);
    await settledMessages(t, ws, last.message_id, 1);
    const recipients = (await messages(t, ws)).results.map((m) => m.recipient.distinct_id).sort();
    expect(recipients).toEqual(['ada', 'cyd']);
  });

  it('starts one execution for 20 concurrent triggers with the same $idempotency_key', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'w', [inbox()]);
    const body = { workflow: 'w', recipients: ['ada'], $idempotency_key: 'order-42' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => trigger(t, ws, body)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(202));
    const ids = new Set(responses.map((r) => r.json().message_id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    await settledMessages(t, ws, id, 1);
    const executions = await t()
      .db.selectFrom('executions')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .execute();
    expect(executions.map((e) => e.id)).toEqual([id]);
    expect((await messages(t, ws, '?idempotency_key=order-42')).results).toHaveLength(1);
  });

  it('cancels by cancellation_key during a delay: the step after it never runs', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'later', [
      inbox('first'),
      node('delay', { delay_type: 'fixed', duration: '3s' }),
      inbox('second'),
    ]);
    const call = baseCall(t, ws);
    // The anchor documents `{code, message}` for this call's 400 (its example: "at least one filter is required: …").
    const none = await call('POST', '/v1/workflow_run/cancel/', {});
    expect(none.statusCode).toBe(400);
    expect(none.json()).toEqual({
      code: 400,
      message:
        'at least one filter is required: execution_id, recipients, idempotency_key, workflow_slug, cancellation_key',
    });
    const malformed = await call('POST', '/v1/workflow_run/cancel/', { recipients: 'ada' });
    expect(malformed.statusCode).toBe(400);
    expect(Object.keys(malformed.json()).sort()).toEqual(['code', 'message']);
    expect(malformed.json().code).toBe(400);
    const anonymous = await t().app.inject({
      method: 'POST',
      url: '/v1/workflow_run/cancel/',
      payload: { execution_id: 'x' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(Object.keys(anonymous.json()).sort()).toEqual(['code', 'message']);
    const { message_id } = (
      await trigger(t, ws, { workflow: 'later', recipients: ['ada'], cancellation_key: 'cart-1' })
    ).json();
    await waitFor(
      async () =>
        (
          await t()
            .db.selectFrom('workflow_runs')
            .select('status')
            .where('execution_id', '=', message_id)
            .executeTakeFirst()
        )?.status === 'waiting',
      10_000,
      'the run to wait',
    );
    const cancel = await call('POST', '/v1/workflow_run/cancel/', { cancellation_key: 'cart-1' });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toEqual({ execution_ids: [message_id] });
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const sent = (await messages(t, ws, `?execution_id=${message_id}`)).results;
    expect(sent.map((m) => m.workflow.node_ref)).toEqual(['send_inbox_1']);
    const run = await t()
      .db.selectFrom('workflow_runs')
      .select('status')
      .where('execution_id', '=', message_id)
      .executeTakeFirst();
    expect(run?.status).toBe('cancelled');
    // A second cancel finds nothing left to cancel.
    expect((await call('POST', '/v1/workflow_run/cancel/', { cancellation_key: 'cart-1' })).json()).toEqual({
      execution_ids: [],
    });
  });

  it('stores inline users, keeps transient ones to their run, and takes the actor', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'mail', [node('send_email', { template: 'mail' })]);
    const { message_id } = (
      await trigger(t, ws, {
        workflow: 'mail',
        recipients: [
          { distinct_id: 'stored', $email: ['stored@example.com'], name: 'Stored' },
          { distinct_id: 'passing', $email: ['passing@example.com'], is_transient: true },
        ],
        actor: 'boss',
      })
    ).json();
    const settled = await settledMessages(t, ws, message_id, 2);
    const byUser = Object.fromEntries(settled.map((m) => [m.recipient.distinct_id, m]));
    // No email vendor: refused by the last rule, after the address was found.
    expect(byUser.stored).toMatchObject({
      status: 'not_to_be_triggered',
      reason: 'no_provider',
      channel_identity: 'stored@example.com',
    });
    expect(byUser.passing).toMatchObject({
      status: 'not_to_be_triggered',
      reason: 'no_provider',
      channel_identity: 'passing@example.com',
    });
    const call = baseCall(t, ws);
    expect((await call('GET', '/v1/user/stored/')).json()).toMatchObject({ properties: { name: 'Stored' } });
    expect((await call('GET', '/v1/user/passing/')).statusCode).toBe(404);
  });

  it('runs event-triggered workflows for the event’s user, once per event', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'on-signup', [inbox('signup')], { trigger_type: 'event', trigger_events: ['signed_up'] });
    const call = baseCall(t, ws);
    const event = {
      event: 'signed_up',
      distinct_id: 'eve',
      properties: { text: 'welcome aboard' },
      $insert_id: 'evt-1',
    };
    expect((await call('POST', '/event/', event)).statusCode).toBe(202);
    expect((await call('POST', '/event/', event)).statusCode).toBe(202);
    const [message] = await waitFor(async () => {
      const page = await messages(t, ws, '?workflow_slug=on-signup');
      return page.results.length > 0 && page.results.every((m) => m.status === 'delivered') ? page.results : undefined;
    });
    expect(message).toMatchObject({ recipient: { distinct_id: 'eve' }, content: { text: 'welcome aboard' } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await messages(t, ws, '?workflow_slug=on-signup')).meta.count).toBe(1);
  });

  it('runs a legacy dynamic workflow posted to /{workspace_key}/trigger/', async () => {
    const ws = await engineWorkspace(t);
    const call = baseCall(t, ws);
    const response = await call('POST', `/${ws.workspaceKey}/trigger/`, {
      name: 'legacy-welcome',
      template: 'legacy',
      notification_category: 'order-updates',
      users: [{ distinct_id: 'lee' }],
      delivery: { mandatory_channels: ['inbox'] },
      data: { text: 'old style' },
    });
    expect(response.statusCode).toBe(202);
    const [message] = await settledMessages(t, ws, response.json().message_id, 1);
    expect(message).toMatchObject({
      channel: 'inbox',
      status: 'delivered',
      content: { text: 'old style' },
      workflow: { slug: 'legacy-welcome' },
    });
    expect(
      (
        await call('POST', '/not-a-key/trigger/', {
          name: 'x',
          template: 't',
          notification_category: 'c',
          users: [{ distinct_id: 'a' }],
        })
      ).statusCode,
    ).toBe(404);
  });
});
