import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { testRunWorkflow } from '../engine/test-run.js';
import { presentTestRun } from '../presenters/run-traces.js';
import { errors, ref } from '../schemas/common.js';
import { WorkflowParamsSchema } from '../schemas/workflows.js';
import { WorkflowTestRunBodySchema, WorkflowTestRunSchema } from '../schemas/workflow-runs.js';

/** The workflow test run (docs/runs.md, docs/spec/product.md §3): the path one recipient's run would take. */
export const workflowTestRunRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/:workspace/workflow/:slug/test_run/',
    {
      schema: {
        tags: ['workflows'],
        operationId: 'testRunWorkflow',
        summary:
          "Walk the draft or live tree for one recipient: each step's outcome, and per delivery the decision, vendor and rendered content. Nothing is written, sent or queued",
        params: WorkflowParamsSchema,
        body: WorkflowTestRunBodySchema,
        response: { 200: ref(WorkflowTestRunSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const body = request.body;
      const result = await testRunWorkflow(
        { db: app.db, outbound: app.outbound },
        request.workspace.id,
        request.params.slug,
        {
          mode: body.mode === 'live' ? 'live' : 'draft',
          recipient: body.recipient,
          data: body.data ?? {},
          actor: body.actor,
          tenantId: body.tenant_id,
        },
      );
      return presentTestRun(result);
    },
  );
};
