import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { presentWorkspaceKey } from '../presenters/workspace-keys.js';
import { presentWorkspace } from '../presenters/workspaces.js';
import { errors, OffsetQuerySchema, offsetList, ref } from '../schemas/common.js';
import { CreatedWorkspaceSchema, CreateWorkspaceBodySchema, WorkspaceSchema } from '../schemas/workspaces.js';
import { createNamedWorkspace, listWorkspaces } from '../services/workspaces.js';

/** Workspaces are the environments (staging, production) that every other management path is scoped by. */
export const workspaceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['workspaces'];

  app.get(
    '/v1/workspace/',
    {
      schema: {
        tags,
        operationId: 'listWorkspaces',
        summary: 'List workspaces',
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(WorkspaceSchema)), ...errors(400, 401) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listWorkspaces(app.db, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(presentWorkspace) };
    },
  );

  app.post(
    '/v1/workspace/',
    {
      schema: {
        tags,
        operationId: 'createWorkspace',
        summary: 'Create a workspace with its default tenant and default key pair',
        body: CreateWorkspaceBodySchema,
        response: { 201: CreatedWorkspaceSchema, ...errors(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const { workspace, defaultKey } = await app.db
        .transaction()
        .execute((trx) => createNamedWorkspace(trx, app.secretBox, { ...request.body, actor: actorOf(request) }));
      return reply.code(201).send({
        ...presentWorkspace(workspace),
        default_workspace_key: presentWorkspaceKey(defaultKey, app.secretBox),
      });
    },
  );
};
