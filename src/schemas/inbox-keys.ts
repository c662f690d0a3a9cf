import { Type } from '@sinclair/typebox';
import { ActorSchema, Nullable, ref, Timestamp, WorkspaceParamsSchema } from './common.js';

export const PublicKeySchema = Type.Object(
  {
    id: Type.String(),
    api_key: Type.String({ description: 'the public key a web page sends as Authorization (not a secret)' }),
    name: Type.String(),
    allowed_domains: Nullable(Type.Array(Type.String())),
    is_secure_mode_enabled: Type.Boolean(),
    is_deleted: Type.Boolean(),
    is_default: Type.Boolean(),
    created_at: Timestamp,
    created_by: ref(ActorSchema),
    rotated_at: Nullable(Timestamp),
    rotated_by: ref(ActorSchema),
    updated_at: Timestamp,
    updated_by: ref(ActorSchema),
  },
  { $id: 'WorkspacePublicKey', title: 'Workspace public key' },
);

const signingKeyFields = {
  id: Type.String(),
  uid: Type.String({ description: "the key's id; user tokens name it in their `kid` header (optional)" }),
  status: Type.String({ enum: ['active', 'rolled'] }),
  allowed_domains: Nullable(Type.Array(Type.String())),
  expiry_at: Nullable(Timestamp),
  created_at: Timestamp,
  created_by: ref(ActorSchema),
  rolled_at: Nullable(Timestamp),
  rolled_by: ref(ActorSchema),
  deleted_at: Nullable(Timestamp),
  deleted_by: ref(ActorSchema),
};

export const SigningKeySchema = Type.Object(signingKeyFields, {
  $id: 'WorkspaceSigningKey',
  title: 'Workspace signing key',
});

export const CreatedSigningKeySchema = Type.Object(
  {
    ...signingKeyFields,
    public_key_pem: Type.String({ description: 'SPKI PEM of the ES256 (P-256) public key' }),
    private_key_pem: Type.String({ description: 'PKCS#8 PEM: shown in this response only, never stored' }),
    private_key_base64: Type.String({ description: 'private_key_pem, base64-encoded' }),
  },
  { $id: 'CreatedWorkspaceSigningKey', title: 'Created workspace signing key' },
);

export const PublicKeyCreateBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 5000 }))),
});
export const PublicKeyPatchBodySchema = Type.Object({ is_secure_mode_enabled: Type.Boolean() });
export const PublicKeyParamsSchema = Type.Composite([
  WorkspaceParamsSchema,
  Type.Object({ public_key_id: Type.String({ minLength: 1, maxLength: 64 }) }),
]);
export const SigningKeyParamsSchema = Type.Composite([
  WorkspaceParamsSchema,
  Type.Object({ signing_key_uid: Type.String({ minLength: 1, maxLength: 64 }) }),
]);

/** Create and roll take no input; an empty object or no body at all is accepted. */
export const SigningKeyActionBodySchema = Type.Union([Type.Object({}, { additionalProperties: false }), Type.Null()]);
