import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface RegisteredEventRow {
  name: string;
  description: string | null;
  schema_id: number | null;
  schema_slug: string | null;
  schema_version_no: number | null;
  schema_live_version_no: number | null;
  created_at: Date;
  updated_at: Date;
}

const eventColumns = sql`e.name, e.description, e.schema_id, s.slug as schema_slug, e.schema_version_no,
  s.live_version_no as schema_live_version_no, e.created_at, e.updated_at`;

export async function findRegisteredEvent(db: Db, workspaceId: number, name: string) {
  const { rows } = await sql<RegisteredEventRow>`select ${eventColumns}
    from registered_events e left join payload_schemas s on s.id = e.schema_id
    where e.workspace_id = ${workspaceId} and e.name = ${name}`.execute(db);
  return rows[0];
}

export async function listRegisteredEvents(db: Db, workspaceId: number, page: { limit: number; offset: number }) {
  const [{ rows }, total] = await Promise.all([
    sql<RegisteredEventRow>`select ${eventColumns}
      from registered_events e left join payload_schemas s on s.id = e.schema_id
      where e.workspace_id = ${workspaceId} order by e.name limit ${page.limit} offset ${page.offset}`.execute(db),
    db
      .selectFrom('registered_events')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

/**
 * Creates or updates an event. `link` undefined keeps the stored link; null removes it; otherwise
 * it is set (version null: follow the schema's live version). One statement.
 */
export async function upsertRegisteredEvent(
  db: Db,
  workspaceId: number,
  input: {
    name: string;
    description?: string | null;
    link?: { schemaId: number; versionNo: number | null } | null;
  },
) {
  const link =
    input.link === undefined
      ? {}
      : { schema_id: input.link?.schemaId ?? null, schema_version_no: input.link?.versionNo ?? null };
  await db
    .insertInto('registered_events')
    .values({
      workspace_id: workspaceId,
      name: input.name,
      description: input.description ?? null,
      ...link,
    })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'name']).doUpdateSet({
        ...link,
        ...(input.description !== undefined ? { description: input.description } : {}),
        updated_at: sql`greatest(clock_timestamp(), registered_events.updated_at + interval '1 millisecond')`,
      }),
    )
    .execute();
}

/** Workflows whose draft or live version is triggered by the event. One statement. */
export async function findWorkflowsTriggeredBy(db: Db, workspaceId: number, name: string) {
  const { rows } = await sql<{ slug: string }>`
    select w.slug from workflows w
    where w.workspace_id = ${workspaceId}
      and (w.trigger_events @> ${JSON.stringify([name])}::jsonb
        or exists (select 1 from workflow_versions v where v.workflow_id = w.id and v.version_no = w.live_version_no
                   and v.trigger_events @> ${JSON.stringify([name])}::jsonb))
    order by w.slug`.execute(db);
  return rows;
}

/** Several registered events by name, by name. One statement. */
export async function findRegisteredEvents(db: Db, workspaceId: number, names: string[]) {
  if (names.length === 0) return [];
  const { rows } = await sql<RegisteredEventRow>`select ${eventColumns}
    from registered_events e left join payload_schemas s on s.id = e.schema_id
    where e.workspace_id = ${workspaceId} and e.name in (select jsonb_array_elements_text(${JSON.stringify(names)}::jsonb))
    order by e.name`.execute(db);
  return rows;
}

/**
 * Creates or replaces several events in one statement: each takes the description and link given
 * (null: none), as a file pushed by the hosted platform's CLI says them. Names must be distinct.
 */
export async function replaceRegisteredEvents(
  db: Db,
  workspaceId: number,
  events: { name: string; description: string | null; link: { schemaId: number; versionNo: number | null } | null }[],
) {
  if (events.length === 0) return;
  await db
    .insertInto('registered_events')
    .values(
      events.map((event) => ({
        workspace_id: workspaceId,
        name: event.name,
        description: event.description,
        schema_id: event.link?.schemaId ?? null,
        schema_version_no: event.link?.versionNo ?? null,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'name']).doUpdateSet((eb) => ({
        description: eb.ref('excluded.description'),
        schema_id: eb.ref('excluded.schema_id'),
        schema_version_no: eb.ref('excluded.schema_version_no'),
        updated_at: sql`greatest(clock_timestamp(), registered_events.updated_at + interval '1 millisecond')`,
      })),
    )
    .execute();
}
