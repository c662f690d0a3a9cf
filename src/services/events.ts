import type { Trx } from '../db/database.js';
import { applyOperations } from '../domain/entity-operations.js';
import { readEventRecords, type NewEvent } from '../domain/event-records.js';
import { describePayloadErrors, payloadFieldErrors } from '../domain/payload-schemas.js';
import { badRequest } from '../errors.js';
import { findEventSchemas } from '../repositories/payload-schemas.js';
import { insertEvents } from '../repositories/events.js';
import { changeUsers } from './users.js';

/**
 * Events whose registered event links a payload schema must satisfy it (its pinned version, else the
 * live one): the first that does not refuses the request with a 400 naming its fields. One statement.
 */
async function checkEventPayloads(trx: Trx, workspaceId: number, events: NewEvent[], propertiesAt: string[]) {
  if (events.length === 0) return;
  const schemas = new Map(
    (await findEventSchemas(trx, workspaceId, [...new Set(events.map((e) => e.event))])).map((s) => [s.name, s]),
  );
  events.forEach((event, i) => {
    const schema = schemas.get(event.event);
    const errors = schema ? payloadFieldErrors(schema, event.properties, propertiesAt[i]!) : [];
    if (schema && errors.length > 0)
      throw badRequest(
        describePayloadErrors(schema, errors),
        Object.fromEntries(errors.map((e) => [e.field, e.reason])),
      );
  });
}

/**
 * POST /event/, all or nothing: the user edits first (creating unknown users, in the fixed number
 * of statements changeUsers takes), then the tracked events in one statement.
 */
export async function trackEvents(trx: Trx, workspaceId: number, body: unknown) {
  const { events, edits, propertiesAt } = readEventRecords(body);
  await checkEventPayloads(trx, workspaceId, events, propertiesAt);
  const changes = edits.map((edit) => ({
    distinctId: edit.distinctId,
    apply: (state: Parameters<typeof applyOperations>[0]) => applyOperations(state, edit.operations, edit.at),
  }));
  await changeUsers(trx, workspaceId, changes, { create: true });
  const tracked = await insertEvents(trx, workspaceId, events);
  return { tracked, duplicates: events.length - tracked, userEdits: edits.length, events };
}
