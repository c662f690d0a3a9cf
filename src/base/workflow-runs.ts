import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { surfaceOperation, surfaceParams, surfacePath, surfaceTags, type Surface } from '../http/surfaces.js';
import { presentExecution, presentExecutionTrace } from '../presenters/run-traces.js';
import { listTracedExecutions } from '../repositories/run-traces.js';
import { getExecutionTrace } from '../services/run-traces.js';
import { fullErrors, ref } from '../schemas/common.js';
import { cursorList } from '../schemas/cursor.js';
import {
  WorkflowExecutionSchema,
  WorkflowExecutionTraceSchema,
  WorkflowRunListQuerySchema,
  WorkflowRunParamsSchema,
} from '../schemas/workflow-runs.js';
import { textCursorWindow } from '../repositories/cursor-page.js';

/**
 * Run traces (docs/runs.md, docs/spec/product.md §1): what happened to a trigger. The same routes on
 * the base surface and, as their management twin, under `/management/v1/{workspace}/`.
 */
export const workflowRunRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'workflow runs');

    app.get(
      surfacePath(surface, '/workflow_run/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listWorkflowRuns'),
          summary: 'List workflow executions, newest first (cursor pagination), with filters',
          params: surfaceParams(surface, {}),
          querystring: WorkflowRunListQuerySchema,
          response: { 200: cursorList(ref(WorkflowExecutionSchema)), ...fullErrors(400, 401, 404) },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await listTracedExecutions(
          app.db,
          request.workspace.id,
          {
            workflowSlug: q.workflow_slug,
            recipientId: q.recipient_id,
            status: q.status,
            createdAtGte: q.created_at_gte,
            createdAtLte: q.created_at_lte,
          },
          textCursorWindow(q),
        );
        return { meta: page.meta, results: page.results.map(presentExecution) };
      },
    );

    app.get(
      surfacePath(surface, '/workflow_run/:execution_id/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'getWorkflowRun'),
          summary: "One execution's trace: its runs and every step's outcome",
          params: surfaceParams(surface, WorkflowRunParamsSchema.properties),
          response: { 200: ref(WorkflowExecutionTraceSchema), ...fullErrors(400, 401, 404) },
        },
      },
      async (request) =>
        presentExecutionTrace(await getExecutionTrace(app.db, request.workspace.id, request.params.execution_id)),
    );
  };
