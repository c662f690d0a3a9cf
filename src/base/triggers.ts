import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest, HttpError, unavailable } from '../errors.js';
import { acceptTriggers, type Intake, type IntakeRecord } from '../engine/intake.js';
import { presentTriggerResults } from '../presenters/triggers.js';
import { shortErrors } from '../schemas/common.js';
import {
  CancelBodySchema,
  CancelResultSchema,
  failErrors,
  MAX_TRIGGER_RECORDS,
  TRIGGER_BODY_LIMIT,
  TriggerAcceptedSchema,
  TriggerBodySchema,
  TriggerBulkSchema,
} from '../schemas/triggers.js';
import { RecordError, readTriggerRecord } from '../domain/trigger-records.js';
import { cancelExecutions } from '../repositories/executions.js';

const read = (value: unknown, at = ''): IntakeRecord | Intake => {
  try {
    return { ...readTriggerRecord(value, at), source: 'trigger' };
  } catch (error) {
    if (error instanceof RecordError) return { ok: false, status: 400, message: error.message };
    throw error;
  }
};

/** Triggers (docs/spec/engine.md §1): one record → 202, an array → 207 with a result per record. */
export const triggerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const config = { errorShape: 'fail' as const };
  const queueOf = () => {
    if (!app.queue) throw unavailable('the engine is not running');
    return app.queue;
  };

  // Without the durable queue (an app built for tests that need no engine) there is nowhere to
  // write a trigger: the route is not offered rather than answering 503.
  if (app.queue)
    app.post(
      '/trigger/',
      {
        config,
        bodyLimit: TRIGGER_BODY_LIMIT,
        // Checked record by record (readTriggerRecord) so that each error names its field and an array's
        // records stay independent; the schema documents the body.
        validatorCompiler: () => (value) => ({ value }),
        schema: {
          tags: ['triggers'],
          operationId: 'triggerWorkflow',
          summary: 'Trigger a workflow for up to 100 recipients (one record → 202; an array of up to 100 → 207)',
          body: TriggerBodySchema,
          response: { 202: TriggerAcceptedSchema, 207: TriggerBulkSchema, ...failErrors(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const queue = queueOf();
        const body = request.body as unknown;
        const workspaceId = request.workspace.id;
        if (Array.isArray(body)) {
          if (body.length === 0 || body.length > MAX_TRIGGER_RECORDS)
            throw badRequest(`the body must hold 1 to ${MAX_TRIGGER_RECORDS} records`);
          const records = body.map((record, i) => read(record, `[${i}]`));
          const results = await acceptTriggers(app.db, queue, workspaceId, records, app.credentials);
          return reply.code(207).send(presentTriggerResults(results));
        }
        const record = read(body);
        const [result] = await acceptTriggers(app.db, queue, workspaceId, [record], app.credentials);
        if (!result!.ok) throw new HttpError(result!.status, result!.message);
        return reply.code(202).send({ message_id: result!.executionId, status: 'success' });
      },
    );

  app.post(
    '/v1/workflow_run/cancel/',
    {
      // The anchor documents `{code, message}` for this call's 400, as for the broadcast cancel.
      config: { errorShape: 'short' as const },
      schema: {
        tags: ['triggers'],
        operationId: 'cancelWorkflowRuns',
        summary:
          'Cancel the runs matching every given filter (execution_id, recipients, idempotency_key, workflow_slug, cancellation_key)',
        body: CancelBodySchema,
        response: { 200: CancelResultSchema, ...shortErrors(400, 401) },
      },
    },
    async (request) => {
      const body = request.body;
      const filter = {
        executionId: body.execution_id,
        recipients: body.recipients,
        idempotencyKey: body.idempotency_key,
        workflowSlug: body.workflow_slug,
        cancellationKey: body.cancellation_key,
      };
      if (Object.values(filter).every((value) => value === undefined))
        throw badRequest(
          'at least one filter is required: execution_id, recipients, idempotency_key, workflow_slug, cancellation_key',
        );
      const ids = await app.db
        .transaction()
        .execute((trx) => cancelExecutions(trx, request.workspace.id, { ...filter, broadcasts: false }));
      return { execution_ids: ids };
    },
  );
};
