import { Type, type Static } from '@sinclair/typebox';
import { ActorSchema, Nullable, ref, Timestamp, WorkspaceParamsSchema } from './common.js';
import { API_KEY_ID_PREFIX, prefixedIdPattern } from './identifiers.js';

export const ApiKeySchema = Type.Object(
  {
    id: Type.String({ pattern: prefixedIdPattern(API_KEY_ID_PREFIX) }),
    name: Type.String(),
    description: Nullable(Type.String()),
    masked_api_key: Type.String({
      description: 'Not sensitive: the key’s prefix and last four characters, the rest hidden',
    }),
    is_deleted: Type.Boolean({
      description: 'true once the key is disabled; a disabled key never authenticates again',
    }),
    created_at: Timestamp,
    created_by: ref(ActorSchema),
    deleted_at: Nullable(Timestamp),
    deleted_by: ref(ActorSchema),
  },
  {
    $id: 'ApiKey',
    title: 'API key',
    description: 'Base-surface credential (`Authorization: Bearer <api_key>`), as listed: masked only.',
  },
);
export type ApiKey = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = Type.Object(
  {
    ...ApiKeySchema.properties,
    api_key: Type.String({
      description: 'Sensitive. The full key, shown in this response and never again (only its hash is stored).',
    }),
  },
  {
    $id: 'CreatedApiKey',
    title: 'Created API key',
    description: 'The one response that carries the full API key: treat it as sensitive.',
  },
);

export const CreateApiKeyBodySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
);

export const ApiKeyParamsSchema = Type.Object({
  ...WorkspaceParamsSchema.properties,
  api_key_id: Type.String({ description: 'API key id: `ws_apik_` + ULID; any other value is not found (404)' }),
});
