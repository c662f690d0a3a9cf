import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { trackEvents } from '../services/events.js';
import { triggerEventWorkflows } from '../engine/event-triggers.js';
import { wakeEventWaits } from '../engine/event-waits.js';
import { errors } from '../schemas/common.js';
import { EVENT_BODY_LIMIT, EventsAcceptedSchema, EventsBodySchema } from '../schemas/events.js';

/** Events: what users did (tracked into `events`), and the SDKs' asynchronous user edits. */
export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/event/',
    {
      bodyLimit: EVENT_BODY_LIMIT,
      // Fastify's validator is off for this body only: readEventRecords checks it against the same
      // published schema, record by record, so that an error names the record's index and field.
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags: ['events'],
        operationId: 'trackEvents',
        summary: 'Track events and apply user edits (one record or up to 100, all or nothing)',
        body: EventsBodySchema,
        response: { 202: EventsAcceptedSchema, ...errors(400, 401, 413) },
      },
    },
    async (request, reply) => {
      const { tracked, duplicates, userEdits } = await app.db.transaction().execute(async (trx) => {
        const result = await trackEvents(trx, request.workspace.id, request.body);
        // Event-triggered workflows start in the transaction that stores their event (docs/engine.md).
        if (app.queue) await triggerEventWorkflows(trx, app.queue, request.workspace.id, result.events);
        // Runs waiting in branch_waituntil for these events wake in the same transaction.
        if (app.queue) await wakeEventWaits(trx, app.queue, request.workspace.id, result.events);
        return result;
      });
      return reply.code(202).send({ success: true, tracked, duplicates, user_edits: userEdits });
    },
  );
};
