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

/**
 * undici's `request` on one pooled agent (keep-alive connections per origin), loaded when the worker starts (`warm`):
 * `fetch` cost 620–1,120 µs of CPU per call against 250–370 µs for `request` (client and a local server in one
 * process, 4,000 POSTs each, BENCHMARKS.md "Throughput (issue #30)"), its WHATWG streams and Request/Response
 * objects paid for by every message of a fan-out.
 */
let undici: Promise<{ request: typeof import('undici').request; dispatcher: import('undici').Agent }> | undefined;
const client = () => (undici ??= import('undici').then(({ request, Agent }) => ({ request, dispatcher: new Agent() })));

export function signWebhook(secret: string, timestamp: string, body: string) {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export const webhookProvider: Provider = withoutSecrets(
  {
    name: 'webhook',
    channels: [...PROVIDER_CHANNELS],
    configSchema: ConfigSchema,
    warm: async () => {
      await client();
    },
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
      // The client loads before the attempt's deadline starts (a first call must not spend it on the import).
      const { request: post, dispatcher } = await client();
      const deadline = attemptDeadline(signal, timeoutOf(vendor.config));
      try {
        const response = await post(config.url, {
          method: 'POST',
          dispatcher,
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
        const text = await response.body.text().catch(() => '');
        const retryAfter = response.headers['retry-after'];
        return outcomeFromHttpStatus(
          response.statusCode,
          (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null,
          {
            status: response.statusCode,
            body: text.slice(0, 2000),
          },
        );
      } catch (error) {
        return deadline.outcomeOf(error);
      }
    },
  },
  // Its URL may carry a token: kept out of reasons and provider answers as its other secrets are.
  ['url'],
);
