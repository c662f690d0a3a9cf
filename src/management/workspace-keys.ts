import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/request-auth.js';
import { presentWorkspaceKey } from '../presenters/workspace-keys.js';
import { errors, OffsetQuerySchema, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  CreateWorkspaceKeyBodySchema,
  UpdateWorkspaceKeyBodySchema,
  WorkspaceKeyParamsSchema,
  WorkspaceKeySchema,
} from '../schemas/workspace-keys.js';
import {
  createWorkspaceKey,
  deleteWorkspaceKey,
  getWorkspaceKey,
  listWorkspaceKeys,
  rotateWorkspaceKey,
  setWorkspaceKeyActivity,
} from '../services/workspace-keys.js';

/**
 * Workspace key/secret pairs: what backend SDKs sign requests with. Every response carrying a
 * pair has its key and secret in full (docs/spec/interface.md); they appear in no log line and no error body.
 */
export const workspaceKeyRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['workspace keys'];
  const sensitive = 'key and secret in full: sensitive';
  const present = (row: Parameters<typeof presentWorkspaceKey>[0]) => presentWorkspaceKey(row, app.secretBox);
  const changeOf = (request: FastifyRequest, id: string) => ({
    workspaceId: request.workspace.id,
    id,
    actor: actorOf(request),
  });

  app.get(
    '/v1/:workspace/ws_key/',
    {
      schema: {
        tags,
        operationId: 'listWorkspaceKeys',
        summary: `List workspace keys, default first, deleted ones included (${sensitive})`,
        params: WorkspaceParamsSchema,
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(WorkspaceKeySchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listWorkspaceKeys(app.db, request.workspace.id, { limit, offset });
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
        response: { 201: ref(WorkspaceKeySchema), ...errors(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const created = await createWorkspaceKey(app.db, app.secretBox, {
        workspaceId: request.workspace.id,
        name: request.body.name,
        allowedDomains: request.body.allowed_domains,
        actor: actorOf(request),
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
        response: { 200: ref(WorkspaceKeySchema), ...errors(401, 404) },
      },
    },
    async (request) => {
      return present(await getWorkspaceKey(app.db, request.workspace.id, request.params.id));
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
        response: { 200: ref(WorkspaceKeySchema), ...errors(401, 404) },
      },
    },
    async (request) => {
      return present(
        await rotateWorkspaceKey(app.db, app.credentials, app.secretBox, changeOf(request, request.params.id)),
      );
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
        response: { 200: ref(WorkspaceKeySchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const change = changeOf(request, request.params.id);
      return present(await setWorkspaceKeyActivity(app.db, app.credentials, change, request.body.is_active));
    },
  );

  app.delete(
    '/v1/:workspace/ws_key/:id/',
    {
      schema: {
        tags,
        operationId: 'deleteWorkspaceKey',
        summary:
          'Delete a pair: it stays listed with is_deleted and never authenticates again; the default pair cannot be deleted',
        params: WorkspaceKeyParamsSchema,
        response: { 204: Type.Null({ description: 'Deleted; empty body' }), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteWorkspaceKey(app.db, app.credentials, changeOf(request, request.params.id));
      return reply.code(204).send(null);
    },
  );
};
