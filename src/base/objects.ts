import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { surfaceOperation, surfaceParams, surfacePath, surfaceTags, type Surface } from '../http/surfaces.js';
import {
  deleteObject,
  deleteObjects,
  editObject,
  getObject,
  listObjects,
  objectRefOf,
  upsertObject,
} from '../services/objects.js';
import { NoContent, ref, errors } from '../schemas/common.js';
import { cursorList, CursorQuerySchema } from '../schemas/cursor.js';
import { EditBodySchema, EntityUpsertBodySchema } from '../schemas/entity-operations.js';
import {
  BulkDeleteObjectsBodySchema,
  ObjectParamsSchema,
  ObjectSchema,
  ObjectTypeParamsSchema,
} from '../schemas/objects.js';
import { presentObject } from '../presenters/objects.js';

/**
 * The object reads: the list of a type and one object, on the base surface and, as their management twin, under `/management/v1/{workspace}/`
 * (docs/management-twins.md).
 */
export const objectReadRoutes =
  (surface: Surface): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = surfaceTags(surface, 'objects');

    app.get(
      surfacePath(surface, '/object/:object_type/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'listObjects'),
          summary: 'List objects of one type, oldest first (cursor pagination)',
          params: surfaceParams(surface, ObjectTypeParamsSchema.properties),
          querystring: CursorQuerySchema,
          response: { 200: cursorList(ref(ObjectSchema)), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        const page = await listObjects(app.db, request.workspace.id, request.params.object_type, request.query);
        return { meta: page.meta, results: page.results.map(presentObject) };
      },
    );

    app.get(
      surfacePath(surface, '/object/:object_type/:id/'),
      {
        schema: {
          tags,
          operationId: surfaceOperation(surface, 'getObject'),
          summary: 'Fetch an object',
          params: surfaceParams(surface, ObjectParamsSchema.properties),
          response: { 200: ref(ObjectSchema), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        return presentObject(await getObject(app.db, request.workspace.id, objectRefOf(request.params)));
      },
    );
  };

/** Objects: teams, projects, organizations… — fan-out targets that carry properties and channels like users. */
export const objectRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['objects'];
  await app.register(objectReadRoutes('base'));

  app.post(
    '/v1/object/:object_type/:id/',
    {
      schema: {
        tags,
        operationId: 'upsertObject',
        summary: 'Create or update an object: channel keys add entries, other keys set properties',
        params: ObjectParamsSchema,
        body: EntityUpsertBodySchema,
        response: { 201: ref(ObjectSchema), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const row = await app.db
        .transaction()
        .execute((trx) => upsertObject(trx, request.workspace.id, objectRefOf(request.params), request.body));
      return reply.code(201).send(presentObject(row));
    },
  );

  app.patch(
    '/v1/object/:object_type/:id/',
    {
      schema: {
        tags,
        operationId: 'editObject',
        summary: 'Edit an object with operations, as for users',
        params: ObjectParamsSchema,
        body: EditBodySchema,
        response: { 200: ref(ObjectSchema), ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await app.db
        .transaction()
        .execute((trx) => editObject(trx, request.workspace.id, objectRefOf(request.params), request.body.operations));
      return presentObject(row);
    },
  );

  app.delete(
    '/v1/object/:object_type/:id/',
    {
      schema: {
        tags,
        operationId: 'deleteObject',
        summary: 'Delete an object and its subscriptions both ways (counts of its parents follow)',
        params: ObjectParamsSchema,
        response: { 204: NoContent, ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await deleteObject(app.db, request.workspace.id, objectRefOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/bulk/object/:object_type/',
    {
      schema: {
        tags,
        operationId: 'bulkDeleteObjects',
        summary: 'Delete many objects of one type; ids that name no object are skipped',
        params: ObjectTypeParamsSchema,
        body: BulkDeleteObjectsBodySchema,
        response: { 204: NoContent, ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      await deleteObjects(app.db, request.workspace.id, request.params.object_type, request.body.object_ids);
      return reply.code(204).send(null);
    },
  );
};
