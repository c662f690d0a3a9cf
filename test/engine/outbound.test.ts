import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../src/channels/outbound.js';
import { useTestApp, type TestApp } from '../support/app.js';
import { HttpPeer } from '../support/http-peer.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

/**
 * The engine hands providers its outbound policy (src/channels/outbound.ts): a recipient's incoming webhook URL on
 * a loopback address is refused by default, and called where the process allows private addresses.
 */
async function slackToPeer(t: () => TestApp, peer: HttpPeer) {
  const ws = await engineWorkspace(t);
  const vendor = await configClient(t, ws).inject('POST', '/vendor/', {
    channel: 'slack',
    provider: 'incoming_webhook',
    is_default: true,
    config: { timeout_ms: 2000 },
  });
  expect(vendor.statusCode).toBe(201);
  await liveWorkflow(t, ws, 'chat', [node('send_slack', { template: 'ping' })]);
  const response = await trigger(t, ws, {
    workflow: 'chat',
    recipients: [{ distinct_id: 'sam', $slack: { incoming_webhook: { url: `${peer.url}/hook/sam` } } }],
    data: { text: 'deploy finished' },
  });
  expect(response.statusCode).toBe(202);
  const [message] = await settledMessages(t, ws, response.json().message_id, 1);
  return message!;
}

describe('the engine applies the outbound policy to recipient-chosen destinations', () => {
  let peer: HttpPeer;
  beforeAll(async () => {
    peer = await HttpPeer.start();
  });
  beforeEach(() => peer.reset());
  afterAll(() => peer.close());

  describe('by default', () => {
    const t = useTestApp({}, { engine: { engine: { retryDelayScale: 0.002 } } });
    it("refuses a recipient's webhook URL on a loopback address, for good, without calling it", async () => {
      const message = await slackToPeer(t, peer);
      expect(message).toMatchObject({ status: 'delivery_failure', attempts: 1 });
      expect(JSON.stringify(message)).toContain('destination refused: 127.0.0.1 is a loopback address');
      expect(peer.requests).toHaveLength(0);
    });
  });

  describe('where private addresses are allowed', () => {
    const t = useTestApp({}, { engine: { engine: { outbound: outboundPolicy({ allowPrivate: true }) } } });
    it('delivers to it', async () => {
      const message = await slackToPeer(t, peer);
      expect(message).toMatchObject({ status: 'sent_by_vendor' });
      expect(peer.last.path).toBe('/hook/sam');
      expect(JSON.parse(peer.last.text)).toEqual({ text: 'deploy finished' });
    });
  });
});
