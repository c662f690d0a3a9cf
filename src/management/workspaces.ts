import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { badRequest } from '../errors.js';
import { createWorkspace, isWorkspaceSlug, slugFromName } from '../provisioning.js';
import { listWorkspaces } from '../repositories/workspaces.js';
import { fullErrors, OffsetQuerySchema, offsetList, ref } from '../schemas/common.js';
import { presentWorkspaceKey } from '../schemas/workspace-keys.js';
import { CreatedWorkspaceSchema, CreateWorkspaceBodySchema, presentWorkspace, WorkspaceSchema } from '../schemas/workspaces.js';

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
        response: { 200: offsetList(ref(WorkspaceSchema)), ...fullErrors(400, 401) },
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
        response: { 201: CreatedWorkspaceSchema, ...fullErrors(400, 401, 409) },
      },
    },
    async (request, reply) => {
      const slug = request.body.slug ?? slugFromName(request.body.name);
      if (!isWorkspaceSlug(slug)) throw badRequest('slug must be lowercase letters, digits, - and _ (1-64 characters)', { slug: 'is invalid' });
      const { workspace, defaultKey } = await app.db.transaction().execute((trx) =>
        createWorkspace(trx, app.secretBox, { slug, name: request.body.name, description: request.body.description, actor: actorOf(request) }),
      );
      return reply.code(201).send({ ...presentWorkspace(workspace), default_workspace_key: presentWorkspaceKey(defaultKey, app.secretBox) });
    },
  );
};
