import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { actorOf } from '../auth/request-auth.js';
import { notFound } from '../errors.js';
import { presentLinkedSchema, presentSchemaDraft, presentSchemaLive } from '../presenters/payload-schemas.js';
import {
  commitPayloadSchemaDraft,
  liveVersionOf,
  savePayloadSchema,
  schemaNotFound,
} from '../services/payload-schemas.js';
import { fullErrors, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  LinkedPayloadSchemaSchema,
  PayloadSchemaBodySchema,
  PayloadSchemaListQuerySchema,
  PayloadSchemaModeQuerySchema,
  PayloadSchemaParamsSchema,
  PayloadSchemaSchema,
  PayloadSchemaUpsertQuerySchema,
  PayloadSchemaUpsertResultSchema,
} from '../schemas/payload-schemas.js';
import { CommitMessageQuerySchema } from '../schemas/versioning.js';
import { findPayloadSchema, listLinkedSchemas, listPayloadSchemas } from '../repositories/payload-schemas.js';

/** Payload schemas: JSON Schemas authored as drafts and committed into versions; events link them. */
export const payloadSchemaRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['schemas'];

  app.get(
    '/v1/:workspace/schema/',
    {
      schema: {
        tags,
        operationId: 'listPayloadSchemas',
        summary: 'List payload schemas, draft (default) or live, by slug',
        params: WorkspaceParamsSchema,
        querystring: PayloadSchemaListQuerySchema,
        response: { 200: offsetList(ref(PayloadSchemaSchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { mode, limit, offset } = request.query;
      const { rows, count } = await listPayloadSchemas(app.db, request.workspace.id, mode, { limit, offset });
      return {
        meta: { count, limit, offset },
        results: rows.map(({ schema, live }) =>
          mode === 'live' && live ? presentSchemaLive(schema, live) : presentSchemaDraft(schema, live),
        ),
      };
    },
  );

  app.get(
    '/v1/:workspace/schema/all/linked/',
    {
      schema: {
        tags,
        operationId: 'listLinkedPayloadSchemas',
        summary: 'List the schemas workflows and registered events link, with who links them (the CLI reads it)',
        params: WorkspaceParamsSchema,
        querystring: PayloadSchemaListQuerySchema,
        response: { 200: offsetList(ref(LinkedPayloadSchemaSchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { mode, limit, offset } = request.query;
      const { rows, count } = await listLinkedSchemas(app.db, request.workspace.id, mode, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(presentLinkedSchema) };
    },
  );

  app.get(
    '/v1/:workspace/schema/:schema_slug/',
    {
      schema: {
        tags,
        operationId: 'getPayloadSchema',
        summary: 'Fetch a payload schema, draft (default) or live',
        params: PayloadSchemaParamsSchema,
        querystring: PayloadSchemaModeQuerySchema,
        response: { 200: ref(PayloadSchemaSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { schema_slug } = request.params;
      const schema = await findPayloadSchema(app.db, request.workspace.id, schema_slug);
      if (!schema) throw schemaNotFound(schema_slug);
      const live = await liveVersionOf(app.db, schema);
      if (request.query.mode === 'live') {
        if (!live) throw notFound(`schema '${schema_slug}' has no live version: it was never committed`);
        return presentSchemaLive(schema, live);
      }
      return presentSchemaDraft(schema, live);
    },
  );

  app.post(
    '/v1/:workspace/schema/:schema_slug/',
    {
      schema: {
        tags,
        operationId: 'upsertPayloadSchema',
        summary: 'Create or update the draft of a payload schema; ?commit=true commits it when it changed',
        params: PayloadSchemaParamsSchema,
        querystring: PayloadSchemaUpsertQuerySchema,
        body: PayloadSchemaBodySchema,
        response: { 200: PayloadSchemaUpsertResultSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { schema, live, commitResult } = await app.db.transaction().execute((trx) =>
        savePayloadSchema(
          trx,
          request.workspace.id,
          {
            slug: request.params.schema_slug,
            name: request.body.name,
            jsonSchema: request.body.json_schema,
            actor: actorOf(request),
          },
          { commit: request.query.commit, commitMessage: request.query.commit_message ?? null },
        ),
      );
      return { ...presentSchemaDraft(schema, live), commit_result: commitResult };
    },
  );

  app.patch(
    '/v1/:workspace/schema/:schema_slug/commit/',
    {
      schema: {
        tags,
        operationId: 'commitPayloadSchema',
        summary: 'Commit the draft: it becomes the live version (version_no + 1)',
        params: PayloadSchemaParamsSchema,
        querystring: CommitMessageQuerySchema,
        response: { 200: ref(PayloadSchemaSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { schema, live } = await app.db.transaction().execute((trx) =>
        commitPayloadSchemaDraft(trx, request.workspace.id, request.params.schema_slug, {
          commitMessage: request.query.commit_message ?? null,
          actor: actorOf(request),
        }),
      );
      return presentSchemaLive(schema, live);
    },
  );
};
