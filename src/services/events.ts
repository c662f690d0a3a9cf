import type { Trx } from '../db/database.js';
import { applyOperations } from '../domain/entity-operations.js';
import { readEventRecords } from '../domain/event-records.js';
import { insertEvents } from '../repositories/events.js';
import { changeUsers } from './users.js';

/**
 * POST /event/, all or nothing: the user edits first (creating unknown users, in the fixed number
 * of statements changeUsers takes), then the tracked events in one statement.
 */
export async function trackEvents(trx: Trx, workspaceId: number, body: unknown) {
  const { events, edits } = readEventRecords(body);
  const changes = edits.map((edit) => ({
    distinctId: edit.distinctId,
    apply: (state: Parameters<typeof applyOperations>[0]) => applyOperations(state, edit.operations, edit.at),
  }));
  await changeUsers(trx, workspaceId, changes, { create: true });
  const tracked = await insertEvents(trx, workspaceId, events);
  return { tracked, duplicates: events.length - tracked, userEdits: edits.length, events };
}
