import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { presentVendor } from '../presenters/vendors.js';
import { fullErrors, NoContent, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  VendorCreateBodySchema,
  VendorParamsSchema,
  VendorPatchBodySchema,
  VendorSchema,
  VendorTestBodySchema,
  VendorTestResultSchema,
} from '../schemas/vendors.js';
import { changeVendor, createVendor, providers, testVendor, vendorNotFound } from '../services/vendors.js';
import { deleteVendor, findVendor, listVendors } from '../repositories/vendors.js';

/** Vendors: the providers a workspace delivers through, one list for every channel (ours, engine.md §7). */
export const vendorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['vendors'];

  app.get(
    '/v1/:workspace/vendor/',
    {
      schema: {
        tags,
        operationId: 'listVendors',
        summary: 'List vendors, oldest first (secrets masked)',
        params: WorkspaceParamsSchema,
        response: { 200: Type.Object({ results: Type.Array(ref(VendorSchema)) }), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => ({ results: (await listVendors(app.db, request.workspace.id)).map(presentVendor) }),
  );

  app.post(
    '/v1/:workspace/vendor/',
    {
      schema: {
        tags,
        operationId: 'createVendor',
        summary: "Add a vendor: its config is checked against the provider's schema; secrets are encrypted at rest",
        params: WorkspaceParamsSchema,
        body: VendorCreateBodySchema,
        response: { 201: ref(VendorSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const row = await app.db
        .transaction()
        .execute((trx) => createVendor(trx, app.secretBox, providers, request.workspace.id, request.body));
      return reply.code(201).send(presentVendor(row));
    },
  );

  app.get(
    '/v1/:workspace/vendor/:vendor_id/',
    {
      schema: {
        tags,
        operationId: 'getVendor',
        summary: 'One vendor (secrets masked)',
        params: VendorParamsSchema,
        response: { 200: ref(VendorSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await findVendor(app.db, request.workspace.id, request.params.vendor_id);
      if (!row) throw vendorNotFound(request.params.vendor_id);
      return presentVendor(row);
    },
  );

  app.patch(
    '/v1/:workspace/vendor/:vendor_id/',
    {
      schema: {
        tags,
        operationId: 'updateVendor',
        summary: 'Change a vendor: config keys are merged; a secret sent masked keeps its value',
        params: VendorParamsSchema,
        body: VendorPatchBodySchema,
        response: { 200: ref(VendorSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const row = await app.db
        .transaction()
        .execute((trx) =>
          changeVendor(trx, app.secretBox, providers, request.workspace.id, request.params.vendor_id, request.body),
        );
      return presentVendor(row);
    },
  );

  app.delete(
    '/v1/:workspace/vendor/:vendor_id/',
    {
      schema: {
        tags,
        operationId: 'deleteVendor',
        summary: 'Delete a vendor',
        params: VendorParamsSchema,
        response: { 204: NoContent, ...fullErrors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await deleteVendor(app.db, request.workspace.id, request.params.vendor_id)))
        throw vendorNotFound(request.params.vendor_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/v1/:workspace/vendor/:vendor_id/test/',
    {
      schema: {
        tags,
        operationId: 'testVendor',
        summary:
          'Test a vendor: a connection and credentials check, or one test message to `to`; a misconfiguration is ' +
          'answered as {ok: false, error}, never as an error status',
        params: VendorParamsSchema,
        body: VendorTestBodySchema,
        response: { 200: ref(VendorTestResultSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) =>
      testVendor(
        app.db,
        app.secretBox,
        providers,
        { outbound: app.outbound },
        request.workspace.id,
        request.params.vendor_id,
        request.body ?? {},
        // Within the request's own deadline, whatever timeout_ms the vendor has.
        AbortSignal.timeout(Math.max(1000, app.config.REQUEST_TIMEOUT_MS - 1000)),
      ),
  );
};
