import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signingKey, webhookSignature } from '../../src/engine/status-webhooks.js';

/** docs/webhooks.md, "Attempt": the signature is byte for byte the `standardwebhooks` package's. */
describe('a delivery-status webhook signature', () => {
  it('is what standardwebhooks’ Webhook.sign makes, for any secret, id, time and body', () => {
    const bodies = ['{}', JSON.stringify({ type: 'message.delivered', data: { text: 'héllo ✓ 👋', n: 1 } }), ''];
    for (let i = 0; i < 20; i++) {
      const secret = `whsec_${randomBytes(24 + i).toString('base64')}`;
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const at = new Date(1_700_000_000_000 + i * 1_234_567);
      const body = bodies[i % bodies.length]!;
      const seconds = Math.floor(at.getTime() / 1000);
      expect(webhookSignature(signingKey(secret), id, seconds, body)).toBe(new Webhook(secret).sign(id, at, body));
    }
  });
});
