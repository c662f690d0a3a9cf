import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf, workspaceOf } from '../auth/request-auth.js';
import { workflowErrors } from '../configuration/workflow-rules.js';
import { contentOf, draftView, hasChanges, liveView, presentWorkflowView } from '../configuration/workflow-views.js';
import { badRequest, notFound } from '../errors.js';
import { findLiveCategoryNames } from '../repositories/preference-categories.js';
import { commitWorkflowDraft, findLiveWorkflowVersion } from '../repositories/workflow-versions.js';
import { findWorkflow, setWorkflowEnabled } from '../repositories/workflows.js';
import { fullErrors, ref } from '../schemas/common.js';
import {
  WorkflowCommitBodySchema,
  WorkflowCommitQuerySchema,
  WorkflowEnableBodySchema,
  WorkflowParamsSchema,
  WorkflowSchema,
} from '../schemas/workflows.js';

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
        response: { 202: ref(WorkflowSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { slug } = request.params;
      const commitMessage = request.query.commit_message ?? request.body?.commit_message ?? null;
      const { view, known } = await app.db.transaction().execute(async (trx) => {
        // Locking the workflow row makes a concurrent commit of the same workflow wait, then find nothing left to commit.
        const workflow = await findWorkflow(trx, workspaceId, slug, { lock: true });
        if (!workflow) throw notFound(`workflow '${slug}' not found`);
        const live = await findLiveWorkflowVersion(trx, workflow);
        if (live && !hasChanges(workflow, live)) throw badRequest(`workflow '${slug}' has no changes to commit since version ${live.version_no}`);
        const known = await findLiveCategoryNames(trx, workspaceId);
        const errors = workflowErrors(contentOf(workflow), known);
        if (errors.length > 0) throw badRequest(`workflow '${slug}' is invalid and cannot be committed: ${errors.join('; ')}`, { errors });
        const committed = await commitWorkflowDraft(trx, workflow.id, { commitMessage, actor: actorOf(request) });
        return { view: liveView(committed.workflow, committed.version), known };
      });
      return reply.code(202).send(presentWorkflowView(view, known));
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
        response: { 202: ref(WorkflowSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { slug } = request.params;
      const workflow = await setWorkflowEnabled(app.db, workspaceId, slug, request.body.is_enabled, actorOf(request));
      if (!workflow) throw notFound(`workflow '${slug}' not found`);
      const view = draftView(workflow);
      const known = await findLiveCategoryNames(app.db, workspaceId);
      return reply.code(202).send(presentWorkflowView(view, known));
    },
  );
};
