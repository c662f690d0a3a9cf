import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { notFound } from '../errors.js';
import { surfaceOperation, surfaceParams, surfacePath, surfaceTags, type Surface } from '../http/surfaces.js';
import { presentMessage } from '../presenters/messages.js';
import { applyMessageActions } from '../services/messages.js';
import { fullErrors, ref } from '../schemas/common.js';
import { cursorList } from '../schemas/cursor.js';
import {
  BulkMessageBodySchema,
  BulkMessageResultSchema,
  MessageListQuerySchema,
  MessageParamsSchema,
  MessageSchema,
} from '../schemas/messages.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import { findMessage, listMessages } from '../repositories/messages.js';

/**
 * The message reads: the list and one message, on the base surface and, as their management twin,
 * under `/management/v1/{workspace}/` (docs/management-twins.md).
 */
export const messageReadRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'messages');

    app.get(
      surfacePath(surface, '/message/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listMessages'),
          summary: 'List messages, oldest first or with ?order=desc newest first (cursor pagination), with filters',
          params: surfaceParams(surface, {}),
          querystring: MessageListQuerySchema,
          // The management twin also answers 404 for an unknown workspace slug.
          response: { 200: cursorList(ref(MessageSchema)), ...fullErrors(400, 401, 404) },
        },
      },
      async (request) => {
        const q = request.query;
        const page = await listMessages(
          app.db,
          request.workspace.id,
          {
            statuses: [...(q['status[]'] ?? []), ...(q.status ?? [])],
            channel: q.channel,
            recipientIds: [...(q['recipient_id[]'] ?? []), ...(q.recipient_id ?? [])],
            categories: [...(q['category[]'] ?? []), ...(q.category ?? [])],
            workflowSlug: q.workflow_slug,
            executionId: q.execution_id,
            idempotencyKey: q.idempotency_key,
            messageId: q.message_id,
            tenantId: q.tenant_id,
            isCampaign: q.is_campaign,
            objectType: q.object_type,
            objectId: q.object_id,
            createdAtGte: q.created_at_gte,
            createdAtLte: q.created_at_lte,
          },
          cursorWindow(q, q.order === 'desc'),
        );
        return { meta: page.meta, results: page.results.map(presentMessage) };
      },
    );

    app.get(
      surfacePath(surface, '/message/:message_id/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'getMessage'),
          summary: 'One message (ours)',
          params: surfaceParams(surface, MessageParamsSchema.properties),
          response: { 200: ref(MessageSchema), ...fullErrors(400, 401, 404) },
        },
      },
      async (request) => {
        const row = await findMessage(app.db, request.workspace.id, request.params.message_id);
        if (!row) throw notFound('message not found');
        return presentMessage(row);
      },
    );
  };

/** Messages (docs/spec/engine.md §5): the list, one message, and engagement updates in bulk. */
export const messageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['messages'];
  await app.register(messageReadRoutes('base'));

  app.patch(
    '/v1/bulk/message/',
    {
      schema: {
        tags,
        operationId: 'updateMessages',
        summary: 'Mark messages seen, clicked, dismissed, read, unread, archived or unarchived (1 to 1000)',
        body: BulkMessageBodySchema,
        response: { 202: BulkMessageResultSchema, ...fullErrors(400, 401) },
      },
    },
    async (request, reply) => {
      const now = new Date().toISOString();
      const records = await app.db
        .transaction()
        .execute((trx) => applyMessageActions(trx, request.workspace.id, request.body.messages, now));
      return reply.code(202).send({ records });
    },
  );
};
