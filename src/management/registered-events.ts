import { EmptyBodySchema } from '../schemas/empty-body.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { badRequest, notFound } from '../errors.js';
import { replaceEvents, resolveLink } from '../services/registered-events.js';
import { fullErrors, iso, OffsetQuerySchema, offsetList, ref, WorkspaceParamsSchema } from '../schemas/common.js';
import {
  BulkEventsBodySchema,
  CreateEventBodySchema,
  EventParamsSchema,
  LinkedWorkflowsSchema,
  RegisteredEventSchema,
  UpdateEventBodySchema,
} from '../schemas/registered-events.js';
import {
  findRegisteredEvent,
  findWorkflowsTriggeredBy,
  listRegisteredEvents,
  upsertRegisteredEvent,
  type RegisteredEventRow,
} from '../repositories/registered-events.js';

const present = (row: RegisteredEventRow) => ({
  name: row.name,
  description: row.description,
  payload_schema: row.schema_slug === null ? null : { schema: row.schema_slug, version_no: row.schema_version_no },
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

/** The event registry: events a workspace declares, each optionally linked to a payload schema. */
export const registeredEventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['events'];
  const eventNotFound = (name: string, workspace: string) =>
    notFound(`Event '${name}' not found in workspace '${workspace}'`);
  const existing = async (workspaceId: number, name: string, workspace: string) => {
    const row = await findRegisteredEvent(app.db, workspaceId, name);
    if (!row) throw eventNotFound(name, workspace);
    return row;
  };

  app.get(
    '/v1/:workspace/event/',
    {
      schema: {
        tags,
        operationId: 'listRegisteredEvents',
        summary: 'List the registered events, by name',
        params: WorkspaceParamsSchema,
        querystring: OffsetQuerySchema,
        response: { 200: offsetList(ref(RegisteredEventSchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const { rows, count } = await listRegisteredEvents(app.db, request.workspace.id, { limit, offset });
      return { meta: { count, limit, offset }, results: rows.map(present) };
    },
  );

  app.post(
    '/v1/:workspace/event/',
    {
      schema: {
        tags,
        operationId: 'registerEvent',
        summary: 'Register an event (or update it when the name exists), optionally linked to a payload schema',
        params: WorkspaceParamsSchema,
        body: CreateEventBodySchema,
        response: { 200: ref(RegisteredEventSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const { name, description, payload_schema } = request.body;
      const link = await resolveLink(app.db, workspaceId, payload_schema);
      await upsertRegisteredEvent(app.db, workspaceId, { name, description, link });
      return present((await findRegisteredEvent(app.db, workspaceId, name))!);
    },
  );

  app.post(
    '/v1/:workspace/bulk/event/',
    {
      schema: {
        tags,
        operationId: 'replaceRegisteredEvents',
        summary: 'Register or replace several events at once, all or none (the CLI pushes its event files here)',
        params: WorkspaceParamsSchema,
        body: BulkEventsBodySchema,
        response: { 200: offsetList(ref(RegisteredEventSchema)), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const rows = await app.db
        .transaction()
        .execute((trx) => replaceEvents(trx, request.workspace.id, request.body.events));
      return { meta: { count: rows.length, limit: rows.length, offset: 0 }, results: rows.map(present) };
    },
  );

  app.get(
    '/v1/:workspace/event/:url_encoded_event_name/',
    {
      schema: {
        tags,
        operationId: 'getRegisteredEvent',
        summary: 'Fetch a registered event',
        params: EventParamsSchema,
        response: { 200: ref(RegisteredEventSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) =>
      present(await existing(request.workspace.id, request.params.url_encoded_event_name, request.params.workspace)),
  );

  app.patch(
    '/v1/:workspace/event/:url_encoded_event_name/',
    {
      schema: {
        tags,
        operationId: 'updateRegisteredEvent',
        summary: "Change an event's description or payload schema link (fields left out are kept)",
        params: EventParamsSchema,
        body: UpdateEventBodySchema,
        response: { 200: ref(RegisteredEventSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const name = request.params.url_encoded_event_name;
      await existing(workspaceId, name, request.params.workspace);
      const link = await resolveLink(app.db, workspaceId, request.body.payload_schema);
      await upsertRegisteredEvent(app.db, workspaceId, { name, description: request.body.description, link });
      return present((await findRegisteredEvent(app.db, workspaceId, name))!);
    },
  );

  app.get(
    '/v1/:workspace/event/:url_encoded_event_name/linked_workflows/',
    {
      schema: {
        tags,
        operationId: 'listEventLinkedWorkflows',
        summary: 'The workflows the event triggers (draft or live)',
        params: EventParamsSchema,
        response: { 200: LinkedWorkflowsSchema, ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const name = request.params.url_encoded_event_name;
      await existing(workspaceId, name, request.params.workspace);
      const rows = await findWorkflowsTriggeredBy(app.db, workspaceId, name);
      return { results: rows.map((row) => ({ slug: row.slug, usage: ['Trigger'] })) };
    },
  );

  app.patch(
    '/v1/:workspace/event/:url_encoded_event_name/delink_schema/',
    {
      schema: {
        tags,
        operationId: 'delinkEventSchema',
        body: EmptyBodySchema,
        summary: "Remove the event's payload schema link",
        params: EventParamsSchema,
        response: { 200: ref(RegisteredEventSchema), ...fullErrors(400, 401, 404) },
      },
    },
    async (request) => {
      const workspaceId = request.workspace.id;
      const name = request.params.url_encoded_event_name;
      const row = await existing(workspaceId, name, request.params.workspace);
      if (row.schema_id === null)
        throw badRequest('Event does not have a linked schema to delink', {
          payload_schema: ['Event does not have a linked schema to delink'],
        });
      await upsertRegisteredEvent(app.db, workspaceId, { name, link: null });
      return present((await findRegisteredEvent(app.db, workspaceId, name))!);
    },
  );
};
