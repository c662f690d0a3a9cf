import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf, workspaceOf } from '../auth/request-auth.js';
import { workflowErrors } from '../configuration/workflow-rules.js';
import { contentOf, draftView, hasChanges, liveView, presentWorkflowView } from '../configuration/workflow-views.js';
import { badRequest, notFound } from '../errors.js';
import { findLiveCategoryNames } from '../repositories/preference-categories.js';
import { commitWorkflowDraft, findLiveWorkflowVersion, listWorkflows} from '../repositories/workflow-versions.js';
import { deleteWorkflow, findWorkflow, upsertWorkflowDraft } from '../repositories/workflows.js';
import { fullErrors, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  WORKFLOW_SLUG_PATTERN,
  WorkflowBodySchema,
  WorkflowListQuerySchema,
  WorkflowModeQuerySchema,
  WorkflowParamsSchema,
  WorkflowSchema,
  WorkflowUpsertQuerySchema,
} from '../schemas/workflows.js';

const slugRegExp = new RegExp(WORKFLOW_SLUG_PATTERN);

/** Workflows: authored as drafts, committed into numbered versions; the live version is what runs. */
export const workflowRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['workflows'];

  app.get(
    '/v1/:workspace/workflow/',
    {
      schema: {
        tags,
        operationId: 'listWorkflows',
        summary: 'List workflows, draft (default) or live',
        params: WorkspaceParamsSchema,
        querystring: WorkflowListQuerySchema,
        response: { 200: offsetList(ref(WorkflowSchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = workspaceOf(request).id;
      const { mode, limit, offset } = request.query;
      const slugs = request.query.slugs?.split(',').map((slug) => slug.trim()).filter(Boolean);
      const [{ rows, count }, known] = await Promise.all([
        listWorkflows(app.db, workspaceId, mode, { slugs: slugs?.length ? slugs : undefined, limit, offset }),
        findLiveCategoryNames(app.db, workspaceId),
      ]);
      const views = rows.map(({ workflow, live }) => (mode === 'live' && live ? liveView(workflow, live) : draftView(workflow)));
      return { meta: { count, limit, offset }, results: views.map((view) => presentWorkflowView(view, known)) };
    },
  );

  app.get(
    '/v1/:workspace/workflow/:slug/',
    {
      schema: {
        tags,
        operationId: 'getWorkflow',
        summary: 'Fetch a workflow, draft (default) or live',
        params: WorkflowParamsSchema,
        querystring: WorkflowModeQuerySchema,
        response: { 200: ref(WorkflowSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = workspaceOf(request).id;
      const { slug } = request.params;
      const workflow = await findWorkflow(app.db, workspaceId, slug);
      if (!workflow) throw notFound(`workflow '${slug}' not found`);
      let view = draftView(workflow);
      if (request.query.mode === 'live') {
        const live = await findLiveWorkflowVersion(app.db, workflow);
        if (!live) throw notFound(`workflow '${slug}' has no live version: it was never committed`);
        view = liveView(workflow, live);
      }
      return presentWorkflowView(view, await findLiveCategoryNames(app.db, workspaceId));
    },
  );

  app.post(
    '/v1/:workspace/workflow/:slug/',
    {
      schema: {
        tags,
        operationId: 'upsertWorkflow',
        summary: 'Create a workflow or replace its draft; commit=true also commits it when valid',
        params: WorkflowParamsSchema,
        querystring: WorkflowUpsertQuerySchema,
        body: WorkflowBodySchema,
        response: { 201: ref(WorkflowSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { slug } = request.params;
      // The slug is the workflow's address, so a malformed one is refused outright rather than stored as an invalid draft.
      if (!slugRegExp.test(slug)) throw badRequest(`workflow slug '${slug}' is invalid: use lowercase letters, digits, - and _`, { slug: 'is invalid' });
      const { body } = request;
      const content = {
        name: body.name,
        description: body.description ?? null,
        category: body.category,
        trigger_type: body.trigger_type,
        trigger_events: body.trigger_events ?? [],
        tags: body.tags ?? [],
        tree: body.tree,
      };
      const { view, known } = await app.db.transaction().execute(async (trx) => {
        const actor = actorOf(request);
        const workflow = await upsertWorkflowDraft(trx, workspaceId, { slug, content, isEnabled: body.is_enabled ?? undefined, actor });
        const known = await findLiveCategoryNames(trx, workspaceId);
        if (!request.query.commit || workflowErrors(contentOf(workflow), known).length > 0) return { view: draftView(workflow), known };
        const live = await findLiveWorkflowVersion(trx, workflow);
        if (live && !hasChanges(workflow, live)) return { view: liveView(workflow, live), known };
        const committed = await commitWorkflowDraft(trx, workflow.id, { commitMessage: request.query.commit_message ?? null, actor });
        return { view: liveView(committed.workflow, committed.version), known };
      });
      return reply.code(201).send(presentWorkflowView(view, known));
    },
  );

  app.delete(
    '/v1/:workspace/workflow/:slug/',
    {
      schema: {
        tags,
        operationId: 'deleteWorkflow',
        summary: 'Delete a workflow permanently: draft, live version and history',
        params: WorkflowParamsSchema,
        response: { 204: Type.Null({ description: 'No Content' }), ...fullErrors(401, 404) },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      if (!(await deleteWorkflow(app.db, workspaceOf(request).id, slug))) throw notFound(`workflow '${slug}' not found`);
      return reply.code(204).send(null);
    },
  );
};
