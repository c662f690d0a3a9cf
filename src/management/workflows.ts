import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { actorOf } from '../auth/request-auth.js';
import { presentShownWorkflow } from '../presenters/workflows.js';
import { errors, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  WorkflowBodySchema,
  WorkflowListQuerySchema,
  WorkflowModeQuerySchema,
  WorkflowParamsSchema,
  WorkflowSchema,
  WorkflowUpsertQuerySchema,
} from '../schemas/workflows.js';
import {
  changeWorkflows,
  deleteWorkflow,
  getWorkflow,
  listWorkflowsShown,
  saveWorkflowDraft,
} from '../services/workflows.js';

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
        response: { 200: offsetList(ref(WorkflowSchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { shown, count, known } = await listWorkflowsShown(app.db, request.workspace.id, request.query);
      return { meta: { count, limit, offset }, results: shown.map((one) => presentShownWorkflow(one, known)) };
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
        response: { 200: ref(WorkflowSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { slug } = request.params;
      const { shown, known } = await getWorkflow(app.db, request.workspace.id, slug, request.query.mode);
      return presentShownWorkflow(shown, known);
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
        response: { 201: ref(WorkflowSchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const options = {
        commit: request.query.commit === true,
        commitMessage: request.query.commit_message ?? null,
        actor: actorOf(request),
      };
      const { shown, known } = await changeWorkflows(app.db, app.credentials, request.workspace.id, (trx) =>
        saveWorkflowDraft(trx, request.workspace.id, request.params.slug, request.body, options),
      );
      return reply.code(201).send(presentShownWorkflow(shown, known));
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
        response: { 204: Type.Null({ description: 'No Content' }), ...errors(401, 404) },
      },
    },
    async (request, reply) => {
      await changeWorkflows(app.db, app.credentials, request.workspace.id, (trx) =>
        deleteWorkflow(trx, request.workspace.id, request.params.slug),
      );
      return reply.code(204).send(null);
    },
  );
};
