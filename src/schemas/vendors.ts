import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, WorkspaceParamsSchema } from './common.js';
import { PROVIDER_CHANNELS } from './delivery-channels.js';

/** Vendors: a workspace's configured providers per channel (docs/spec/engine.md §7, ours). */

/** A vendor serves one provider channel. */
export const VENDOR_CHANNELS = PROVIDER_CHANNELS;
/** Keys of `config` that hold secrets: encrypted at rest, shown as MASK on every read. */
export const SECRET_CONFIG_KEYS = ['password', 'auth_token', 'private_key', 'secret', 'api_key', 'access_token', 'key'];
export const MASK = '********';

const Priority = Type.Integer({
  minimum: 0,
  maximum: 1000,
  description: 'failover order within the channel: lower first (default 0); the default vendor comes before all',
});
const FallbackAfterSeconds = Type.Integer({
  minimum: 0,
  maximum: 86_400,
  description:
    'how long a failing delivery keeps retrying this vendor before the next active vendor of the channel takes ' +
    'it (default 60; 0: at the first transient failure); a permanent refusal goes to the next vendor at once',
});

export const VendorSchema = Type.Object(
  {
    id: Type.String(),
    channel: Type.String(),
    provider: Type.String(),
    nickname: Nullable(Type.String()),
    is_default: Type.Boolean(),
    is_active: Type.Boolean(),
    priority: Priority,
    fallback_after_seconds: FallbackAfterSeconds,
    config: Type.Record(Type.String(), Type.Unknown(), { description: `secrets shown as "${MASK}"` }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Vendor', title: 'Vendor' },
);

export const VendorParamsSchema = Type.Composite([
  WorkspaceParamsSchema,
  Type.Object({ vendor_id: Type.String({ minLength: 1, maxLength: 64 }) }),
]);

export const VendorCreateBodySchema = Type.Object(
  {
    channel: Type.String({ enum: [...VENDOR_CHANNELS] }),
    provider: Type.String({ minLength: 1, maxLength: 64 }),
    nickname: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    is_default: Type.Optional(Type.Boolean()),
    is_active: Type.Optional(Type.Boolean()),
    priority: Type.Optional(Priority),
    fallback_after_seconds: Type.Optional(FallbackAfterSeconds),
    config: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);

export const VendorPatchBodySchema = Type.Object(
  {
    nickname: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
    is_default: Type.Optional(Type.Boolean()),
    is_active: Type.Optional(Type.Boolean()),
    priority: Type.Optional(Priority),
    fallback_after_seconds: Type.Optional(FallbackAfterSeconds),
    config: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: `merged into the stored config; a secret sent as "${MASK}" keeps its stored value`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const VendorTestBodySchema = Type.Union(
  [
    Type.Object(
      {
        to: Type.Optional(
          Type.Unknown({
            description:
              'send one test message to this address, as a channel entry holds it: an email, a phone number, a ' +
              'push token or subscription, {"incoming_webhook": {"url": …}}; without it the provider checks its ' +
              'connection and credentials (or, when it has no check, messages the destination its config names)',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'optional' },
);

export const VendorTestResultSchema = Type.Object(
  {
    ok: Type.Boolean({ description: 'the check passed, or the provider accepted the test message' }),
    mode: Type.Union([Type.Literal('check'), Type.Literal('message')], {
      description: 'check: connection and credentials, nothing sent; message: one test message sent',
    }),
    error: Nullable(Type.String({ description: "why not: the provider's answer or the misconfiguration found" })),
    retryable: Type.Boolean({
      description: 'the failure is transient (a timeout, a refused connection, 5xx, 429): a delivery would be retried',
    }),
    provider_response: Type.Unknown({ description: "the provider's answer, secrets masked; null when none" }),
    duration_ms: Type.Integer(),
  },
  { $id: 'VendorTestResult', title: 'Vendor test result' },
);
