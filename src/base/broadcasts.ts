import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest, HttpError, unavailable } from '../errors.js';
import { acceptTriggers } from '../engine/intake.js';
import { checkPathWorkspaceKey } from '../services/workspace-keys.js';
import { shortErrors } from '../schemas/common.js';
import { CancelResultSchema, failErrors } from '../schemas/triggers.js';
import {
  BroadcastAcceptedSchema,
  BroadcastBodySchema,
  BroadcastCancelBodySchema,
  BroadcastParamsSchema,
} from '../schemas/broadcasts.js';
import { cancelExecutions } from '../repositories/executions.js';
import { readBroadcast } from '../domain/broadcasts.js';
import { RecordError } from '../domain/trigger-records.js';

/**
 * Broadcasts (docs/spec/engine.md §1, docs/engine.md "Broadcasts"): the request records the
 * broadcast and its first job in one transaction and answers 202; the worker pages through the
 * list's members. Cancel stops the members not yet processed.
 */
export const broadcastRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // As the trigger calls: offered only where the durable queue is (src/base/triggers.ts).
  if (app.queue)
    app.post(
      '/:workspace_key/broadcast/',
      {
        // The trigger calls' own error shape: the anchor documents a bare string, the SDK reads the status.
        config: { errorShape: 'fail' as const },
        schema: {
          tags: ['broadcasts'],
          operationId: 'triggerBroadcast',
          summary: "Send a template to every live member of a subscriber list (202; the fan-out is the worker's)",
          params: BroadcastParamsSchema,
          body: BroadcastBodySchema,
          response: { 202: BroadcastAcceptedSchema, ...failErrors(400, 401, 404) },
        },
      },
      async (request, reply) => {
        const queue = app.queue;
        if (!queue) throw unavailable('the engine is not running');
        const workspaceId = request.workspace.id;
        await checkPathWorkspaceKey(app.db, workspaceId, request.params.workspace_key);
        let record;
        try {
          record = readBroadcast(request.body, Date.now());
        } catch (error) {
          if (error instanceof RecordError) throw badRequest(error.message);
          throw error;
        }
        const [result] = await acceptTriggers(
          app.db,
          queue,
          workspaceId,
          [
            {
              ...record,
              source: 'broadcast',
              dynamic: { tree: record.tree, category: record.category },
            },
          ],
          app.credentials,
        );
        if (!result!.ok) throw new HttpError(result!.status, result!.message);
        return reply.code(202).send({ status: 'success', message: 'Accepted - OK', message_id: result!.executionId });
      },
    );

  app.post(
    '/v1/broadcast_run/cancel/',
    {
      // The anchor documents `{code, message}` for this call's 400.
      config: { errorShape: 'short' as const },
      schema: {
        tags: ['broadcasts'],
        operationId: 'cancelBroadcastRuns',
        summary: 'Cancel the broadcasts matching every given filter (execution_id, list_id, idempotency_key)',
        body: BroadcastCancelBodySchema,
        response: { 200: CancelResultSchema, ...shortErrors(400, 401) },
      },
    },
    async (request) => {
      const { execution_id, list_id, idempotency_key } = request.body;
      if (execution_id === undefined && list_id === undefined && idempotency_key === undefined)
        throw badRequest('at least one filter is required: execution_id, list_id, idempotency_key');
      const ids = await app.db.transaction().execute((trx) =>
        cancelExecutions(trx, request.workspace.id, {
          executionId: execution_id,
          listId: list_id,
          idempotencyKey: idempotency_key,
          broadcasts: true,
        }),
      );
      return { execution_ids: ids };
    },
  );
};
