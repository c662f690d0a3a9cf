import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { notFound } from '../errors.js';
import { presentPublicKey, presentSigningKey } from '../presenters/inbox-keys.js';
import { revokePublicKey, revokeSigningKey } from '../services/inbox-keys.js';
import { errors, NoContent, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  CreatedSigningKeySchema,
  PublicKeyCreateBodySchema,
  PublicKeyParamsSchema,
  PublicKeyPatchBodySchema,
  PublicKeySchema,
  SigningKeyActionBodySchema,
  SigningKeyParamsSchema,
  SigningKeySchema,
} from '../schemas/inbox-keys.js';
import { createPublicKey, createSigningKey, newPublicKey, rollSigningKey } from '../services/inbox-keys.js';
import { readInboxSecret, rotateInboxSecret } from '../services/inbox-secrets.js';
import { Type } from '@sinclair/typebox';
import { EmptyBodySchema } from '../schemas/empty-body.js';
import { listPublicKeys, listSigningKeys, updatePublicKey } from '../repositories/inbox-keys.js';

const publicKeyNotFound = (id: string) => notFound(`public key '${id}' not found`);

/** The in-app inbox's keys (docs/channels.md): public keys name the workspace to a browser, signing keys sign user tokens. */
export const inboxKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['inbox keys'];

  // The older inbox clients' secret (docs/clients.md): shown masked; a POST makes or replaces it and shows it once.
  const InboxSecretSchema = Type.Object({ secret: Type.String(), created_at: Type.String({ format: 'date-time' }) });
  app.get(
    '/v1/:workspace/inbox_secret/',
    {
      schema: {
        tags,
        operationId: 'getInboxSecret',
        summary: "The older inbox clients' secret, masked",
        params: WorkspaceParamsSchema,
        response: { 200: InboxSecretSchema, ...errors(401, 404) },
      },
    },
    async (request) => readInboxSecret(app.db, app.secretBox, request.workspace.id),
  );

  app.post(
    '/v1/:workspace/inbox_secret/',
    {
      schema: {
        tags,
        operationId: 'rotateInboxSecret',
        summary: 'Make or replace the inbox secret (the old one stops working at once); shown whole only here',
        params: WorkspaceParamsSchema,
        body: EmptyBodySchema,
        response: { 201: InboxSecretSchema, ...errors(401, 404) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          await rotateInboxSecret(app.db, { secretBox: app.secretBox, cache: app.credentials }, request.workspace.id),
        ),
  );

  app.get(
    '/v1/:workspace/ws_public_key/',
    {
      schema: {
        tags,
        operationId: 'listWorkspacePublicKeys',
        summary: 'List the public keys',
        params: WorkspaceParamsSchema,
        response: { 200: offsetList(ref(PublicKeySchema)), ...errors(401, 404) },
      },
    },
    async (request) => {
      const rows = await listPublicKeys(app.db, request.workspace.id);
      return { meta: { count: rows.length, limit: rows.length, offset: 0 }, results: rows.map(presentPublicKey) };
    },
  );

  app.post(
    '/v1/:workspace/ws_public_key/',
    {
      schema: {
        tags,
        operationId: 'createWorkspacePublicKey',
        summary: 'Create a public key for web pages (not a secret)',
        params: WorkspaceParamsSchema,
        body: PublicKeyCreateBodySchema,
        response: { 201: ref(PublicKeySchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const row = await createPublicKey(app.db, {
        workspaceId: request.workspace.id,
        name: request.body.name,
        description: request.body.description ?? null,
        actor: actorOf(request),
      });
      return reply.code(201).send(presentPublicKey(row));
    },
  );

  app.patch(
    '/v1/:workspace/ws_public_key/:public_key_id/',
    {
      schema: {
        tags,
        operationId: 'patchWorkspacePublicKey',
        summary: 'Enable or disable secure mode',
        params: PublicKeyParamsSchema,
        body: PublicKeyPatchBodySchema,
        response: { 202: ref(PublicKeySchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { public_key_id } = request.params;
      const row = await updatePublicKey(
        app.db,
        request.workspace.id,
        public_key_id,
        { secureMode: request.body.is_secure_mode_enabled },
        actorOf(request),
      );
      if (!row) throw publicKeyNotFound(public_key_id);
      return reply.code(202).send(presentPublicKey(row));
    },
  );

  app.delete(
    '/v1/:workspace/ws_public_key/:public_key_id/',
    {
      schema: {
        tags,
        operationId: 'deleteWorkspacePublicKey',
        summary: 'Delete a public key: web pages using it stop authenticating',
        params: PublicKeyParamsSchema,
        response: { 204: NoContent, ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const { public_key_id } = request.params;
      const row = await revokePublicKey(
        app.db,
        app.credentials,
        request.workspace.id,
        public_key_id,
        { delete: true },
        actorOf(request),
      );
      if (!row) throw publicKeyNotFound(public_key_id);
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/v1/:workspace/ws_public_key/:public_key_id/rotate/',
    {
      schema: {
        tags,
        operationId: 'rotateWorkspacePublicKey',
        summary: 'New key material for the same record; the old value stops working at once',
        params: PublicKeyParamsSchema,
        response: { 202: ref(PublicKeySchema), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const { public_key_id } = request.params;
      const row = await revokePublicKey(
        app.db,
        app.credentials,
        request.workspace.id,
        public_key_id,
        { apiKey: newPublicKey() },
        actorOf(request),
      );
      if (!row) throw publicKeyNotFound(public_key_id);
      return reply.code(202).send(presentPublicKey(row));
    },
  );

  app.get(
    '/v1/:workspace/ws_signing_key/',
    {
      schema: {
        tags,
        operationId: 'listWorkspaceSigningKeys',
        summary: 'List the signing keys (active and rolled; never private material)',
        params: WorkspaceParamsSchema,
        response: { 200: offsetList(ref(SigningKeySchema)), ...errors(401, 404) },
      },
    },
    async (request) => {
      const rows = await listSigningKeys(app.db, request.workspace.id);
      return { meta: { count: rows.length, limit: rows.length, offset: 0 }, results: rows.map(presentSigningKey) };
    },
  );

  app.post(
    '/v1/:workspace/ws_signing_key/',
    {
      schema: {
        tags,
        operationId: 'createWorkspaceSigningKey',
        summary: 'Create the signing key (one active per workspace); its private key is in this response only',
        params: WorkspaceParamsSchema,
        body: SigningKeyActionBodySchema,
        response: { 201: ref(CreatedSigningKeySchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = request.workspace.id;
      const created = await app.db.transaction().execute((trx) => createSigningKey(trx, workspaceId, actorOf(request)));
      const { row, ...material } = created;
      return reply.code(201).send({ ...presentSigningKey(row), ...material });
    },
  );

  app.delete(
    '/v1/:workspace/ws_signing_key/:signing_key_uid/',
    {
      schema: {
        tags,
        operationId: 'deleteWorkspaceSigningKey',
        summary: 'Delete a signing key: tokens it signed stop verifying at once',
        params: SigningKeyParamsSchema,
        response: { 204: NoContent, ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      const { signing_key_uid } = request.params;
      const row = await revokeSigningKey(
        app.db,
        app.credentials,
        request.workspace.id,
        signing_key_uid,
        actorOf(request),
      );
      if (!row) throw notFound(`signing key '${signing_key_uid}' not found`);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/:workspace/ws_signing_key/:signing_key_uid/roll/',
    {
      schema: {
        tags,
        operationId: 'rollWorkspaceSigningKey',
        summary: 'Replace the active key by a new one; the old one is marked rolled',
        params: SigningKeyParamsSchema,
        body: SigningKeyActionBodySchema,
        response: { 201: ref(CreatedSigningKeySchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = request.workspace.id;
      const { signing_key_uid } = request.params;
      const created = await app.db
        .transaction()
        .execute((trx) => rollSigningKey(trx, workspaceId, signing_key_uid, actorOf(request)));
      const { row, ...material } = created;
      return reply.code(201).send({ ...presentSigningKey(row), ...material });
    },
  );
};
