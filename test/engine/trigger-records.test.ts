import { WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { sdkFor } from '../support/sdk.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { configClient } from '../support/config.js';
import {
  baseCall,
  engineWorkspace,
  inbox,
  liveWorkflow,
  node,
  settledMessages,
  trigger,
} from '../support/engine-drivers.js';

const SECRET = 'whsec-0123456789abcdef';

/** What a trigger record may hold: the published schema's limits (issue #32 points 8 and 9). */
describe('trigger records', () => {
  const t = useTestApp({}, { engine: { engine: { retryDelayScale: 0.002, deliveryTimeoutMs: 2000 } } });
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(SECRET);
  });
  afterAll(() => receiver.close());

  it('triggers a user whose distinct_id has 256 characters, as users allow, and refuses 257', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'long-ids', [inbox('long')]);
    const id = 'u'.repeat(256);
    expect((await baseCall(t, ws)('POST', `/v1/user/${id}/`, {})).statusCode).toBeLessThan(300);
    for (const recipient of [id, { distinct_id: id, name: 'Long' }]) {
      const response = await trigger(t, ws, { workflow: 'long-ids', recipients: [recipient], actor: id });
      expect(response.statusCode, JSON.stringify(response.json())).toBe(202);
      const [message] = await settledMessages(t, ws, response.json().message_id, 1);
      expect(message).toMatchObject({ status: 'delivered', recipient: { distinct_id: id } });
    }
    const tooLong = await trigger(t, ws, { workflow: 'long-ids', recipients: ['u'.repeat(257)] });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json()).toEqual({
      status: 'fail',
      message: 'recipients[0] must be a distinct_id of 1 to 256 characters, not only spaces',
    });
    // The compiled record schema has the last word: a field the hand reader never looked at is checked too.
    const metadata = await trigger(t, ws, { workflow: 'long-ids', recipients: ['ada'], metadata: 'x' });
    expect(metadata.statusCode).toBe(400);
    expect(metadata.json().message).toMatch(/^metadata /);
    // In a batch, each record is checked on its own.
    const batch = await trigger(t, ws, [
      { workflow: 'long-ids', recipients: [id] },
      { workflow: 'long-ids', recipients: [{ object_type: 'Teams!', id: 'x' }] },
    ]);
    expect(batch.statusCode).toBe(207);
    expect(batch.json().records.map((r: { status_code: number }) => r.status_code)).toEqual([202, 400]);
    expect(batch.json().records[1].error.message).toBe(
      '[1].recipients[0].object_type must be lowercase letters, digits, _ or -, at most 64 characters',
    );
  });

  it('delivers to a transient recipient without distinct_id from the Node SDK, creating no user', async () => {
    const ws = await engineWorkspace(t);
    const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'webhook',
      nickname: 'hook',
      is_default: true,
      config: { url: receiver.url, secret: SECRET },
    });
    expect(vendor.statusCode).toBe(201);
    await liveWorkflow(t, ws, 'guest-mail', [node('send_email', { template: 'guest' })]);
    const sdk = await sdkFor(t(), ws);
    const answer = await sdk.workflows.trigger(
      new WorkflowTriggerRequest({
        workflow: 'guest-mail',
        recipients: [{ is_transient: true, $email: ['guest@example.com'], name: 'Guest' }],
        data: { text: 'for a guest' },
      }),
    );
    expect(answer).toMatchObject({ success: true, status_code: 202 });
    const { message_id } = JSON.parse((answer as unknown as { message: string }).message);
    const [message] = await settledMessages(t, ws, message_id, 1);
    expect(message).toMatchObject({
      status: 'sent_by_vendor',
      channel: 'email',
      channel_identity: 'guest@example.com',
    });
    expect(message!.recipient.distinct_id).toMatch(/^\$transient\//);
    const delivered = receiver.received.find((r) => r.body.recipient?.distinct_id === message!.recipient.distinct_id);
    expect(delivered?.body).toMatchObject({ channel: 'email', content: { header: 'Hello Guest' } });
    const users = await t().db.selectFrom('users').select('id').where('workspace_id', '=', ws.workspaceId).execute();
    expect(users).toEqual([]);
  });
});
