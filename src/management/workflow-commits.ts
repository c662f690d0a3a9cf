import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { presentShownWorkflow } from '../presenters/workflows.js';
import { errors, ref } from '../schemas/common.js';
import {
  WorkflowCommitBodySchema,
  WorkflowCommitQuerySchema,
  WorkflowEnableBodySchema,
  WorkflowParamsSchema,
  WorkflowSchema,
} from '../schemas/workflows.js';
import { changeWorkflows, commitWorkflow, enableWorkflow } from '../services/workflows.js';

/** Moving a workflow between states: commit its draft live, enable or disable it. */
export const workflowCommitRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['workflows'];

  app.patch(
    '/v1/:workspace/workflow/:slug/commit/',
    {
      schema: {
        tags,
        operationId: 'commitWorkflow',
        summary: 'Commit the draft: it becomes the live version (version_no + 1)',
        params: WorkflowParamsSchema,
        querystring: WorkflowCommitQuerySchema,
        body: WorkflowCommitBodySchema,
        response: { 202: ref(WorkflowSchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const input = {
        commitMessage: request.query.commit_message ?? request.body?.commit_message ?? null,
        actor: actorOf(request),
      };
      const { shown, known } = await changeWorkflows(app.db, app.credentials, request.workspace.id, (trx) =>
        commitWorkflow(trx, request.workspace.id, request.params.slug, input),
      );
      return reply.code(202).send(presentShownWorkflow(shown, known));
    },
  );

  app.patch(
    '/v1/:workspace/workflow/:slug/enable/',
    {
      schema: {
        tags,
        operationId: 'enableWorkflow',
        summary: 'Enable or disable a workflow (takes effect at once, no commit needed)',
        params: WorkflowParamsSchema,
        body: WorkflowEnableBodySchema,
        response: { 202: ref(WorkflowSchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      const { is_enabled } = request.body;
      const { shown, known } = await changeWorkflows(app.db, app.credentials, request.workspace.id, (trx) =>
        enableWorkflow(trx, request.workspace.id, slug, is_enabled, actorOf(request)),
      );
      return reply.code(202).send(presentShownWorkflow(shown, known));
    },
  );
};
