import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, WorkspaceParamsSchema } from './common.js';
import { prefixedIdPattern, WEBHOOK_ENDPOINT_ID_PREFIX } from './identifiers.js';

/** Delivery-status webhooks out (docs/spec/product.md §5, docs/webhooks.md). */

/** The events an endpoint may take, as the messages trigger names them (migrations/2026-11-27T70-webhook-endpoints.ts). */
export const WEBHOOK_EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.refused',
  'message.seen',
  'message.read',
  'message.clicked',
  'message.dismissed',
] as const;

export const WEBHOOK_URL_MAX_LENGTH = 2048;

export const WebhookEndpointSchema = Type.Object(
  {
    id: Type.String({ pattern: prefixedIdPattern(WEBHOOK_ENDPOINT_ID_PREFIX) }),
    url: Type.String(),
    events: Type.Array(Type.String({ enum: [...WEBHOOK_EVENT_TYPES] })),
    is_active: Type.Boolean(),
    description: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  {
    $id: 'WebhookEndpoint',
    title: 'Webhook endpoint',
    description: 'Where message status events are posted, signed as Standard Webhooks; its secret is never shown here.',
  },
);

export const CreatedWebhookEndpointSchema = Type.Object(
  {
    ...WebhookEndpointSchema.properties,
    secret: Type.String({
      description:
        'Sensitive. The signing secret (`whsec_` + base64), shown in this response only; it is stored encrypted.',
    }),
  },
  {
    $id: 'CreatedWebhookEndpoint',
    title: 'Webhook endpoint with its secret',
    description: 'The one response that carries the signing secret (on create and on rotation): treat it as sensitive.',
  },
);

const url = Type.String({
  minLength: 1,
  maxLength: WEBHOOK_URL_MAX_LENGTH,
  description: 'an http or https URL; the outbound guard decides which hosts may be reached (docs/channels.md)',
});
const events = Type.Array(Type.String({ enum: [...WEBHOOK_EVENT_TYPES] }), {
  minItems: 1,
  maxItems: WEBHOOK_EVENT_TYPES.length,
  uniqueItems: true,
});
const description = Nullable(Type.String({ maxLength: 2000 }));

export const CreateWebhookEndpointBodySchema = Type.Object(
  {
    url,
    events,
    is_active: Type.Optional(Type.Boolean({ default: true })),
    description: Type.Optional(description),
  },
  { additionalProperties: false },
);

export const PatchWebhookEndpointBodySchema = Type.Object(
  {
    url: Type.Optional(url),
    events: Type.Optional(events),
    is_active: Type.Optional(Type.Boolean()),
    description: Type.Optional(description),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookEndpointParamsSchema = Type.Object({
  ...WorkspaceParamsSchema.properties,
  endpoint_id: Type.String({
    maxLength: 64,
    description: 'webhook endpoint id: `whep_` + ULID; any other value is not found (404)',
  }),
});
