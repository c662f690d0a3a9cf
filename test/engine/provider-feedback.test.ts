import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { HttpPeer, type RecordedRequest } from '../support/http-peer.js';
import { configClient } from '../support/config.js';
import { liveTemplate } from '../support/templates.js';
import { baseCall, engineWorkspace, liveWorkflow, node, trigger, waitFor } from '../support/engine-drivers.js';
import type { WorkspaceFixture } from '../support/fixtures.js';

/**
 * Provider feedback (product spec §5, docs/channels.md "Provider feedback"): a push token FCM reports UNREGISTERED
 * is marked inactive on its user and never used again; the next delivery goes to the user's next active token.
 * FCM is a local HTTP peer (token endpoint and send endpoint), as in the provider's own tests.
 */
describe('provider feedback: dead push tokens', () => {
  const t = useTestApp({}, { engine: { renderer: 'templates' } });
  let peer: HttpPeer;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const unregistered = {
    error: {
      code: 404,
      message: 'Requested entity was not found.',
      status: 'NOT_FOUND',
      details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }],
    },
  };
  const tokenOf = (request: RecordedRequest) =>
    (JSON.parse(request.text) as { message: { token: string } }).message.token;
  beforeAll(async () => {
    peer = await HttpPeer.start();
    peer.answerAlways((request: RecordedRequest) => {
      if (request.path === '/token') return { status: 200, body: { access_token: 'ya29.t', expires_in: 3599 } };
      return tokenOf(request).startsWith('dead-')
        ? { status: 404, body: unregistered }
        : { status: 200, body: { name: 'projects/p/messages/1' } };
    });
  });
  afterAll(() => peer.close());

  async function settled(ws: WorkspaceFixture, executionId: string) {
    return waitFor(
      async () => {
        const row = await t()
          .db.selectFrom('messages')
          .select(['status', 'reason', 'channel_identity'])
          .where('workspace_id', '=', ws.workspaceId)
          .where('execution_id', '=', executionId)
          .where('channel', '=', 'androidpush')
          .executeTakeFirst();
        return row && row.status !== 'triggered' && row.status !== 'to_be_triggered' ? row : undefined;
      },
      20_000,
      'the push message settled',
    );
  }

  it('marks an UNREGISTERED token inactive on the user and sends to the next active token after', async () => {
    const ws = await engineWorkspace(t);
    const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
      channel: 'androidpush',
      provider: 'fcm',
      config: {
        project_id: 'p',
        client_email: 'herald@p.iam.gserviceaccount.com',
        private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
        token_uri: `${peer.url}/token`,
        base_url: peer.url,
      },
    });
    expect(vendor.statusCode, vendor.body).toBe(201);
    await liveTemplate(t, ws, 'ping', ['androidpush']);
    await liveWorkflow(t, ws, 'ping', [node('send_mobile_push', { template: 'ping' })]);
    const user = { distinct_id: 'paula', $androidpush: ['dead-token-1', 'live-token-2'] };

    const accepted = await trigger(t, ws, { workflow: 'ping', recipients: [user] });
    expect(accepted.statusCode, accepted.body).toBe(202);
    const first = accepted.json();
    expect(await settled(ws, first.message_id)).toMatchObject({
      status: 'delivery_failure',
      reason: 'provider_refused',
      channel_identity: 'dead-token-1',
    });
    const stored = await waitFor(async () => {
      const answer = await baseCall(t, ws)('GET', '/v1/user/paula/');
      const entries = answer.json().$androidpush as { value: string; status: string }[];
      return entries.find((e) => e.value === 'dead-token-1')?.status === 'inactive' ? entries : undefined;
    });
    expect(stored.find((e) => e.value === 'live-token-2')?.status).toBe('active');

    // The next delivery skips the dead token: the next active one gets it, and the dead one is never sent again.
    const second = (await trigger(t, ws, { workflow: 'ping', recipients: [{ distinct_id: 'paula' }] })).json();
    expect(await settled(ws, second.message_id)).toMatchObject({
      status: 'sent_by_vendor',
      channel_identity: 'live-token-2',
    });
    const sent = peer.requests.filter((r) => r.path !== '/token').map(tokenOf);
    expect(sent.filter((token) => token === 'dead-token-1')).toHaveLength(1);
  });
});
