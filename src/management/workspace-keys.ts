import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { actorOf, workspaceOf } from '../auth/request-auth.js';
import { isPrefixedId } from '../auth/tokens.js';
import { credentialTag } from '../auth/credential-cache.js';
import { changeCredentials } from '../auth/credential-changes.js';
import type { Db } from '../db/database.js';
import { badRequest, notFound } from '../errors.js';
import {
  createWorkspaceKey,
  deleteWorkspaceKey,
  findWorkspaceKey,
  listWorkspaceKeys,
  rotateWorkspaceKeySecret,
  setWorkspaceKeyActive,
  WORKSPACE_KEY_ID_PREFIX,
} from '../repositories/workspace-keys.js';
import { fullErrors, OffsetQuerySchema, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  CreateWorkspaceKeyBodySchema,
  normalizeDomains,
  presentWorkspaceKey,
  UpdateWorkspaceKeyBodySchema,
  WorkspaceKeyParamsSchema,
  WorkspaceKeySchema,
} from '../schemas/workspace-keys.js';

const unknownKey = (id: string) => notFound(`workspace key '${id}' not found`);

/**
 * Why a change found no live pair: unknown here (404), deleted (404: a deleted pair is a
 * tombstone, readable but never changed again), or, for delete only, the default pair (400).
 */
async function refusal(db: Db, workspaceId: number, id: string, action: 'change' | 'delete') {
  const pair = isPrefixedId(WORKSPACE_KEY_ID_PREFIX, id) ? await findWorkspaceKey(db, workspaceId, id) : undefined;
  if (!pair) return unknownKey(id);
  if (pair.is_deleted) return notFound(`workspace key '${id}' has been deleted`);
  if (action === 'delete' && pair.is_default) {
    return badRequest(`workspace key '${id}' is the workspace's default pair and cannot be deleted; rotate it instead`, { id: 'is the default pair' });
  }
  return unknownKey(id);
}

/**
 * Runs one change (a single UPDATE … RETURNING) on a live pair of the workspace, or throws why it
 * matched none. A change drops the pair's cached lookups here and, by NOTIFY, on every instance.
 */
async function changePair<T>(app: FastifyInstance, workspaceId: number, id: string, action: 'change' | 'delete', run: (trx: Db) => Promise<T | undefined>) {
  const result = isPrefixedId(WORKSPACE_KEY_ID_PREFIX, id)
    ? await changeCredentials(app.db, app.credentials, async (trx) => {
        const value = await run(trx);
        return { value, changed: value === undefined ? [] : [credentialTag(id)] };
      })
    : undefined;
  if (result === undefined) throw await refusal(app.db, workspaceId, id, action);
  return result;
}

/**
 * Workspace key/secret pairs: what backend SDKs sign requests with. Every response carrying a
 * pair has its key and secret in full (interface.md); they appear in no log line and no error body.
 */
export const workspaceKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['workspace keys'];
  const sensitive = 'key and secret in full: sensitive';
  const present = (row: Parameters<typeof presentWorkspaceKey>[0]) => presentWorkspaceKey(row, app.secretBox);

  app.get(
    '/v1/:workspace/ws_key/',
    {
      schema: {
        tags,
        operationId: 'listWorkspaceKeys',
        summary: `List workspace keys, default first, deleted ones included (${sensitive})`,
        params: WorkspaceParamsSchema,
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(WorkspaceKeySchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listWorkspaceKeys(app.db, workspaceOf(request).id, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(present) };
    },
  );

  app.post(
    '/v1/:workspace/ws_key/',
    {
      schema: {
        tags,
        operationId: 'createWorkspaceKey',
        summary: `Create a workspace key pair (${sensitive})`,
        params: WorkspaceParamsSchema,
        body: CreateWorkspaceKeyBodySchema,
        response: { 201: ref(WorkspaceKeySchema), ...fullErrors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const created = await createWorkspaceKey(app.db, app.secretBox, {
        workspaceId: workspaceOf(request).id,
        name: request.body.name,
        isDefault: false,
        allowedDomains: normalizeDomains(request.body.allowed_domains),
        createdBy: actorOf(request),
      });
      return reply.code(201).send(present(created));
    },
  );

  app.get(
    '/v1/:workspace/ws_key/:id/',
    {
      schema: {
        tags,
        operationId: 'getWorkspaceKey',
        summary: `Fetch one workspace key, deleted or not (${sensitive})`,
        params: WorkspaceKeyParamsSchema,
        response: { 200: ref(WorkspaceKeySchema), ...fullErrors(401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const pair = isPrefixedId(WORKSPACE_KEY_ID_PREFIX, id) ? await findWorkspaceKey(app.db, workspaceOf(request).id, id) : undefined;
      if (!pair) throw unknownKey(id);
      return present(pair);
    },
  );

  app.post(
    '/v1/:workspace/ws_key/:id/rotate/',
    {
      schema: {
        tags,
        operationId: 'rotateWorkspaceKey',
        summary: `Rotate a pair's secret: same key, new secret; the old secret stops authenticating at once (${sensitive})`,
        params: WorkspaceKeyParamsSchema,
        response: { 200: ref(WorkspaceKeySchema), ...fullErrors(401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const workspaceId = workspaceOf(request).id;
      const rotated = await changePair(app, workspaceId, id, 'change', (trx) =>
        rotateWorkspaceKeySecret(trx, app.secretBox, { workspaceId, id, rotatedBy: actorOf(request) }),
      );
      return present(rotated);
    },
  );

  app.patch(
    '/v1/:workspace/ws_key/:id/',
    {
      schema: {
        tags,
        operationId: 'updateWorkspaceKey',
        summary: `Pause or resume a pair (${sensitive})`,
        params: WorkspaceKeyParamsSchema,
        body: UpdateWorkspaceKeyBodySchema,
        response: { 200: ref(WorkspaceKeySchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const workspaceId = workspaceOf(request).id;
      const updated = await changePair(app, workspaceId, id, 'change', (trx) =>
        setWorkspaceKeyActive(trx, { workspaceId, id, isActive: request.body.is_active }),
      );
      return present(updated);
    },
  );

  app.delete(
    '/v1/:workspace/ws_key/:id/',
    {
      schema: {
        tags,
        operationId: 'deleteWorkspaceKey',
        summary: 'Delete a pair: it stays listed with is_deleted and never authenticates again; the default pair cannot be deleted',
        params: WorkspaceKeyParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted; empty body' }), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const workspaceId = workspaceOf(request).id;
      await changePair(app, workspaceId, id, 'delete', (trx) => deleteWorkspaceKey(trx, { workspaceId, id, deletedBy: actorOf(request) }));
      return reply.code(204).send(null);
    },
  );
};
