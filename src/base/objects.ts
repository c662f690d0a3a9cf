import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { workspaceOf } from '../auth/request-auth.js';
import { changeObject, objectNotFound } from '../entities/object-edits.js';
import { applyOperations, applyUpsert, type EntityState } from '../entities/operations.js';
import { cursorWindow } from '../repositories/cursor-page.js';
import { deleteObjects, findObject, listObjects } from '../repositories/objects.js';
import { NoContent, ref, shortErrors } from '../schemas/common.js';
import { cursorList, CursorQuerySchema } from '../schemas/cursor.js';
import { EditBodySchema, EntityUpsertBodySchema } from '../schemas/entity-operations.js';
import { BulkDeleteObjectsBodySchema, ObjectParamsSchema, ObjectSchema, ObjectTypeParamsSchema, presentObject } from '../schemas/objects.js';

/** Objects: teams, projects, organizations… — fan-out targets that carry properties and channels like users. */
export const objectRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['objects'];
  const config = { errorShape: 'short' as const };
  const refOf = (params: { object_type: string; id: string }) => ({ objectType: params.object_type, objectId: params.id });

  app.get(
    '/v1/object/:object_type/',
    {
      config,
      schema: {
        tags,
        operationId: 'listObjects',
        summary: 'List objects of one type, oldest first (cursor pagination)',
        params: ObjectTypeParamsSchema,
        querystring: CursorQuerySchema,
        response: { 200: cursorList(ref(ObjectSchema)), ...shortErrors(400, 401) },
      },
    },
    async (request) => {
      const page = await listObjects(app.db, workspaceOf(request).id, request.params.object_type, cursorWindow(request.query));
      return { meta: page.meta, results: page.results.map(presentObject) };
    },
  );

  app.get(
    '/v1/object/:object_type/:id/',
    {
      config,
      schema: {
        tags,
        operationId: 'getObject',
        summary: 'Fetch an object',
        params: ObjectParamsSchema,
        response: { 200: ref(ObjectSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await findObject(app.db, workspaceOf(request).id, refOf(request.params));
      if (!row) throw objectNotFound(refOf(request.params));
      return presentObject(row);
    },
  );

  app.post(
    '/v1/object/:object_type/:id/',
    {
      config,
      schema: {
        tags,
        operationId: 'upsertObject',
        summary: 'Create or update an object: channel keys add entries, other keys set properties',
        params: ObjectParamsSchema,
        body: EntityUpsertBodySchema,
        response: { 201: ref(ObjectSchema), ...shortErrors(400, 401) },
      },
    },
    async (request, reply) => {
      const apply = (state: EntityState) => applyUpsert(state, request.body);
      const row = await app.db.transaction().execute((trx) => changeObject(trx, workspaceOf(request).id, refOf(request.params), apply, { create: true }));
      return reply.code(201).send(presentObject(row));
    },
  );

  app.patch(
    '/v1/object/:object_type/:id/',
    {
      config,
      schema: {
        tags,
        operationId: 'editObject',
        summary: 'Edit an object with operations, as for users',
        params: ObjectParamsSchema,
        body: EditBodySchema,
        response: { 200: ref(ObjectSchema), ...shortErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const apply = (state: EntityState) => applyOperations(state, request.body.operations, 'operations');
      const row = await app.db.transaction().execute((trx) => changeObject(trx, workspaceOf(request).id, refOf(request.params), apply, { create: false }));
      return presentObject(row);
    },
  );

  app.delete(
    '/v1/object/:object_type/:id/',
    {
      config,
      schema: {
        tags,
        operationId: 'deleteObject',
        summary: 'Delete an object and its subscriptions both ways (counts of its parents follow)',
        params: ObjectParamsSchema,
        response: { 204: NoContent, ...shortErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { object_type, id } = request.params;
      if ((await deleteObjects(app.db, workspaceOf(request).id, object_type, [id])) === 0) throw objectNotFound(refOf(request.params));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/v1/bulk/object/:object_type/',
    {
      config,
      schema: {
        tags,
        operationId: 'bulkDeleteObjects',
        summary: 'Delete many objects of one type; ids that name no object are skipped',
        params: ObjectTypeParamsSchema,
        body: BulkDeleteObjectsBodySchema,
        response: { 204: NoContent, ...shortErrors(400, 401) },
      },
    },
    async (request, reply) => {
      await deleteObjects(app.db, workspaceOf(request).id, request.params.object_type, request.body.object_ids);
      return reply.code(204).send(null);
    },
  );
};
