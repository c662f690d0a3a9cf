import type { Db } from '../db/database.js';
import type { NewEvent } from '../domain/event-records.js';

/** Stores tracked events in one statement; an insert_id already stored (or repeated in the batch) is skipped. Returns how many were new. */
export async function insertEvents(db: Db, workspaceId: number, events: NewEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const inserted = await db
    .insertInto('events')
    .values(
      events.map((event) => ({ ...event, workspace_id: workspaceId, properties: JSON.stringify(event.properties) })),
    )
    .onConflict((oc) => oc.columns(['workspace_id', 'insert_id']).doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}
