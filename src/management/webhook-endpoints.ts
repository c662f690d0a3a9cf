import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors, NoContent, OffsetQuerySchema, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  CreatedWebhookEndpointSchema,
  CreateWebhookEndpointBodySchema,
  PatchWebhookEndpointBodySchema,
  WebhookEndpointParamsSchema,
  WebhookEndpointSchema,
} from '../schemas/webhook-endpoints.js';
import { EmptyBodySchema } from '../schemas/empty-body.js';
import { presentWebhookEndpoint } from '../presenters/webhook-endpoints.js';
import {
  changeWebhookEndpoint,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookEndpointSecret,
} from '../services/webhook-endpoints.js';

/**
 * Delivery-status webhook endpoints (docs/spec/product.md §5, docs/webhooks.md): where a workspace's message
 * status events are posted. The signing secret leaves the server in the create and rotate responses only.
 */
export const webhookEndpointRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['webhook endpoints'];

  app.get(
    '/v1/:workspace/webhook_endpoint/',
    {
      schema: {
        tags,
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints, oldest first (never their secrets)',
        params: WorkspaceParamsSchema,
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(WebhookEndpointSchema)), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listWebhookEndpoints(app.db, request.workspace.id, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(presentWebhookEndpoint) };
    },
  );

  app.post(
    '/v1/:workspace/webhook_endpoint/',
    {
      schema: {
        tags,
        operationId: 'createWebhookEndpoint',
        summary: 'Add a webhook endpoint (its signing secret is in this response only: sensitive)',
        params: WorkspaceParamsSchema,
        body: CreateWebhookEndpointBodySchema,
        response: { 201: ref(CreatedWebhookEndpointSchema), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { row, secret } = await createWebhookEndpoint(
        app.db,
        { secretBox: app.secretBox, outbound: app.outbound },
        request.workspace.id,
        request.body,
      );
      return reply.code(201).send({ ...presentWebhookEndpoint(row), secret });
    },
  );

  app.get(
    '/v1/:workspace/webhook_endpoint/:endpoint_id/',
    {
      schema: {
        tags,
        operationId: 'getWebhookEndpoint',
        summary: 'One webhook endpoint (never its secret)',
        params: WebhookEndpointParamsSchema,
        response: { 200: ref(WebhookEndpointSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) =>
      presentWebhookEndpoint(await getWebhookEndpoint(app.db, request.workspace.id, request.params.endpoint_id)),
  );

  app.patch(
    '/v1/:workspace/webhook_endpoint/:endpoint_id/',
    {
      schema: {
        tags,
        operationId: 'updateWebhookEndpoint',
        summary: 'Change a webhook endpoint: the fields given; events changed apply to status changes from now on',
        params: WebhookEndpointParamsSchema,
        body: PatchWebhookEndpointBodySchema,
        response: { 200: ref(WebhookEndpointSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) =>
      presentWebhookEndpoint(
        await changeWebhookEndpoint(
          app.db,
          app.outbound,
          request.workspace.id,
          request.params.endpoint_id,
          request.body,
        ),
      ),
  );

  app.delete(
    '/v1/:workspace/webhook_endpoint/:endpoint_id/',
    {
      schema: {
        tags,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint, and its events not yet delivered',
        params: WebhookEndpointParamsSchema,
        response: { 204: NoContent, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteWebhookEndpoint(app.db, request.workspace.id, request.params.endpoint_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/:workspace/webhook_endpoint/:endpoint_id/rotate_secret/',
    {
      schema: {
        tags,
        operationId: 'rotateWebhookEndpointSecret',
        summary:
          'Replace the signing secret (the new one is in this response only: sensitive); every attempt from now on, ' +
          'retries included, is signed with it',
        params: WebhookEndpointParamsSchema,
        body: EmptyBodySchema,
        response: { 200: ref(CreatedWebhookEndpointSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const { row, secret } = await rotateWebhookEndpointSecret(
        app.db,
        app.secretBox,
        request.workspace.id,
        request.params.endpoint_id,
      );
      return { ...presentWebhookEndpoint(row), secret };
    },
  );
};
