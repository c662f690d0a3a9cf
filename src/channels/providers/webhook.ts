import { createHmac } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { outcomeFromHttpStatus, type DeliveryRequest, type Provider, type VendorConfig } from '../provider.js';
import { PROVIDER_CHANNELS } from '../../schemas/delivery-channels.js';
import { attemptDeadline, timeoutOf, TimeoutMsSchema, withoutSecrets } from './shared.js';

/**
 * The `webhook` provider (docs/spec/engine.md §7): any channel, delivered as a signed JSON POST to
 * the workspace's own endpoint. The receiver checks `x-herald-signature` =
 * `sha256=<hex HMAC-SHA256(secret, timestamp + "." + raw body)>`, with `x-herald-timestamp` in
 * Unix seconds, and answers any 2xx to accept. Every attempt of one message carries the same
 * `idempotency-key` (its message_id): delivery is at-least-once, and a receiver that remembers the
 * keys it has handled processes each message once (docs/channels.md, "Any channel: `webhook`").
 */

const ConfigSchema = Type.Object(
  {
    url: Type.String({
      pattern: '^https?://',
      maxLength: 2048,
      description: 'where messages are POSTed (a secret: it may carry a token; sealed at rest, masked on reads)',
    }),
    secret: Type.String({ minLength: 16, maxLength: 512, description: 'the HMAC-SHA256 signing secret' }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description: 'extra headers sent as they are; each value is a secret (sealed at rest, masked on reads)',
      }),
    ),
    timeout_ms: TimeoutMsSchema,
  },
  { additionalProperties: false },
);

export function signWebhook(secret: string, timestamp: string, body: string) {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export const webhookProvider: Provider = withoutSecrets(
  {
    name: 'webhook',
    channels: [...PROVIDER_CHANNELS],
    configSchema: ConfigSchema,
    async send(vendor: VendorConfig, request: DeliveryRequest, signal: AbortSignal) {
      const config = vendor.config as { url: string; secret: string; headers?: Record<string, string> };
      const body = JSON.stringify({
        message_id: request.messageId,
        execution_id: request.executionId,
        channel: request.channel,
        recipient: request.recipient,
        tenant_id: request.tenantId,
        workflow: request.workflow,
        content: request.content,
      });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const deadline = attemptDeadline(signal, timeoutOf(vendor.config));
      try {
        const response = await fetch(config.url, {
          method: 'POST',
          headers: {
            ...config.headers,
            'content-type': 'application/json',
            'idempotency-key': request.messageId,
            'x-herald-timestamp': timestamp,
            'x-herald-signature': signWebhook(config.secret, timestamp, body),
          },
          body,
          signal: deadline.signal,
        });
        const text = await response.text().catch(() => '');
        return outcomeFromHttpStatus(response.status, response.headers.get('retry-after'), {
          status: response.status,
          body: text.slice(0, 2000),
        });
      } catch (error) {
        return deadline.outcomeOf(error);
      }
    },
  },
  // Its URL may carry a token: kept out of reasons and provider answers as its other secrets are.
  ['url'],
);
