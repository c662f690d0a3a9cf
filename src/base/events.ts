import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { readEventRecords } from '../entities/event-records.js';
import { applyOperations } from '../entities/operations.js';
import { changeUsers } from '../entities/user-edits.js';
import { insertEvents } from '../repositories/events.js';
import { fullErrors } from '../schemas/common.js';
import { EVENT_BODY_LIMIT, EventsAcceptedSchema, EventsBodySchema } from '../schemas/events.js';

/** Events: what users did (tracked into `events`), and the SDKs' asynchronous user edits. */
export const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/event/',
    {
      bodyLimit: EVENT_BODY_LIMIT,
      // The schema documents the body; readEventRecords checks it record by record, so that an
      // error names the record's index and field instead of a branch of the union.
      validatorCompiler: () => (value) => ({ value }),
      schema: {
        tags: ['events'],
        operationId: 'trackEvents',
        summary: 'Track events and apply user edits (one record or up to 100, all or nothing)',
        body: EventsBodySchema,
        response: { 202: EventsAcceptedSchema, ...fullErrors(400, 401, 413) },
      },
    },
    async (request, reply) => {
      const workspaceId = workspaceOf(request).id;
      const { events, edits } = readEventRecords(request.body);
      const tracked = await app.db.transaction().execute(async (trx) => {
        const changes = edits.map((edit) => ({ distinctId: edit.distinctId, apply: (s: Parameters<typeof applyOperations>[0]) => applyOperations(s, edit.operations, edit.at) }));
        await changeUsers(trx, workspaceId, changes, { create: true });
        return insertEvents(trx, workspaceId, events);
      });
      return reply.code(202).send({ success: true, tracked, duplicates: events.length - tracked, user_edits: edits.length });
    },
  );
};
