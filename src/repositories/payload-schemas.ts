import { sql } from 'kysely';
import type { Db, Trx, LockOption } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import type { LinkedSchema } from '../domain/payload-schemas.js';

export const SCHEMA_COLUMNS = [
  'id',
  'slug',
  'name',
  'json_schema',
  'hash',
  'live_version_no',
  'created_at',
  'updated_at',
] as const;

export interface PayloadSchemaRow {
  id: number;
  slug: string;
  name: string;
  json_schema: Record<string, unknown>;
  hash: string;
  live_version_no: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface PayloadSchemaVersionRow {
  version_no: number;
  name: string;
  json_schema: Record<string, unknown>;
  hash: string;
  commit_message: string | null;
  committed_at: Date;
}

const VERSION_COLUMNS = ['version_no', 'name', 'json_schema', 'hash', 'commit_message', 'committed_at'] as const;

/** Writes the draft (creating the schema when new) and returns the row, locked for a commit that may follow. */
export function upsertPayloadSchemaDraft(
  trx: Trx,
  workspaceId: number,
  input: { slug: string; name: string; jsonSchema: Record<string, unknown>; hash: string; actor: ActorColumn | null },
): Promise<PayloadSchemaRow> {
  const values = {
    name: input.name,
    json_schema: JSON.stringify(input.jsonSchema),
    hash: input.hash,
    updated_by: JSON.stringify(input.actor),
  };
  return trx
    .insertInto('payload_schemas')
    .values({ workspace_id: workspaceId, slug: input.slug, ...values })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'slug']).doUpdateSet({
        ...values,
        updated_at: sql`greatest(clock_timestamp(), payload_schemas.updated_at + interval '1 millisecond')`,
      }),
    )
    .returning(SCHEMA_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function findPayloadSchema<H extends Db>(db: H, workspaceId: number, slug: string, options: LockOption<H> = {}) {
  let query = db
    .selectFrom('payload_schemas')
    .select(SCHEMA_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst() as Promise<PayloadSchemaRow | undefined>;
}

export function findPayloadSchemaVersion(db: Db, schemaId: number, versionNo: number) {
  return db
    .selectFrom('payload_schema_versions')
    .select(VERSION_COLUMNS)
    .where('schema_id', '=', schemaId)
    .where('version_no', '=', versionNo)
    .executeTakeFirst() as Promise<PayloadSchemaVersionRow | undefined>;
}

/** A page of schemas with their live version beside each (null when never committed); live mode lists committed ones only. */
export async function listPayloadSchemas(
  db: Db,
  workspaceId: number,
  mode: 'draft' | 'live',
  page: { limit: number; offset: number },
) {
  let base = db
    .selectFrom('payload_schemas as s')
    .leftJoin('payload_schema_versions as v', (join) =>
      join.onRef('v.schema_id', '=', 's.id').onRef('v.version_no', '=', 's.live_version_no'),
    )
    .where('s.workspace_id', '=', workspaceId);
  if (mode === 'live') base = base.where('s.live_version_no', 'is not', null);
  const [rows, total] = await Promise.all([
    base
      .select(SCHEMA_COLUMNS.map((column) => `s.${column}` as const))
      .select([
        'v.version_no as v_version_no',
        'v.name as v_name',
        'v.json_schema as v_json_schema',
        'v.hash as v_hash',
        'v.commit_message as v_commit_message',
        'v.committed_at as v_committed_at',
      ])
      .orderBy('s.slug')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return {
    count: Number(total.count),
    rows: rows.map(({ v_version_no, v_name, v_json_schema, v_hash, v_commit_message, v_committed_at, ...schema }) => ({
      schema: schema as PayloadSchemaRow,
      live:
        v_version_no === null
          ? undefined
          : ({
              version_no: v_version_no,
              name: v_name,
              json_schema: v_json_schema,
              hash: v_hash,
              commit_message: v_commit_message,
              committed_at: v_committed_at,
            } as PayloadSchemaVersionRow),
    })),
  };
}

/** Records the draft as the next version and makes it live: two statements. */
export async function commitPayloadSchema(
  trx: Trx,
  schema: PayloadSchemaRow,
  input: { commitMessage: string | null; actor: ActorColumn | null },
): Promise<PayloadSchemaVersionRow> {
  const version = await trx
    .insertInto('payload_schema_versions')
    .columns(['schema_id', 'version_no', 'name', 'json_schema', 'hash', 'commit_message', 'committed_by'])
    .expression((eb) =>
      eb
        .selectFrom('payload_schemas as s')
        .select([
          's.id',
          sql<number>`coalesce(s.live_version_no, 0) + 1`.as('version_no'),
          's.name',
          's.json_schema',
          's.hash',
          sql`${input.commitMessage}::text`.as('commit_message'),
          sql`${JSON.stringify(input.actor)}::jsonb`.as('committed_by'),
        ])
        .where('s.id', '=', schema.id),
    )
    .returning(VERSION_COLUMNS)
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('payload_schemas')
    .set({ live_version_no: version.version_no })
    .where('id', '=', schema.id)
    .execute();
  return version as PayloadSchemaVersionRow;
}

/**
 * The committed versions these links name (a version, or the schema's live one when null), by slug
 * and requested version. One statement; a link to a schema that is gone finds nothing.
 */
export async function findLinkedSchemas(
  db: Db,
  workspaceId: number,
  links: { schema: string; version_no: number | null }[],
) {
  if (links.length === 0) return [];
  const { rows } = await sql<LinkedSchema & { requested: number | null }>`
    select l.s as slug, l.v as requested, v.version_no, v.json_schema, v.hash
    from jsonb_to_recordset(${JSON.stringify(links.map((l) => ({ s: l.schema, v: l.version_no })))}::jsonb) as l(s text, v integer)
    join payload_schemas p on p.workspace_id = ${workspaceId} and p.slug = l.s
    join payload_schema_versions v on v.schema_id = p.id and v.version_no = coalesce(l.v, p.live_version_no)`.execute(
    db,
  );
  return rows;
}

/** The committed schema version each of these registered events links, by event name. One statement. */
export async function findEventSchemas(db: Db, workspaceId: number, names: string[]) {
  if (names.length === 0) return [];
  const { rows } = await sql<LinkedSchema & { name: string }>`
    select e.name, p.slug, v.version_no, v.json_schema, v.hash
    from registered_events e
    join payload_schemas p on p.id = e.schema_id
    join payload_schema_versions v on v.schema_id = p.id and v.version_no = coalesce(e.schema_version_no, p.live_version_no)
    where e.workspace_id = ${workspaceId}
      and e.name in (select jsonb_array_elements_text(${JSON.stringify(names)}::jsonb))`.execute(db);
  return rows;
}

export interface LinkedSchemaRow {
  slug: string;
  version_no: number | null;
  name: string;
  json_schema: Record<string, unknown>;
  linked_workflows: string[];
  linked_events: string[];
  created_at: Date;
}

/**
 * Every schema link in use, one row per (schema, pinned version or null for "the live one"), with
 * the workflows (their draft, or live version in live mode) and registered events making it, and
 * the schema version it resolves to (the draft schema while never committed). Two statements.
 */
export async function listLinkedSchemas(
  db: Db,
  workspaceId: number,
  mode: 'draft' | 'live',
  page: { limit: number; offset: number },
) {
  const workflowLinks =
    mode === 'draft'
      ? sql`select w.payload_schema->>'schema' as slug, (w.payload_schema->>'version_no')::integer as v,
            w.slug as workflow, null::text as event
          from workflows w where w.workspace_id = ${workspaceId} and w.payload_schema is not null`
      : sql`select wv.payload_schema->>'schema' as slug, (wv.payload_schema->>'version_no')::integer as v,
            w.slug as workflow, null::text as event
          from workflows w join workflow_versions wv on wv.workflow_id = w.id and wv.version_no = w.live_version_no
          where w.workspace_id = ${workspaceId} and wv.payload_schema is not null`;
  const grouped = sql`with links as (
      ${workflowLinks}
      union all
      select p.slug, e.schema_version_no, null, e.name
      from registered_events e join payload_schemas p on p.id = e.schema_id
      where e.workspace_id = ${workspaceId}
    ), grouped as (
      select slug, v,
        coalesce(jsonb_agg(distinct workflow) filter (where workflow is not null), '[]'::jsonb) as linked_workflows,
        coalesce(jsonb_agg(distinct event) filter (where event is not null), '[]'::jsonb) as linked_events
      from links group by slug, v
    )`;
  const [{ rows }, { rows: total }] = await Promise.all([
    sql<LinkedSchemaRow>`${grouped}
      select g.slug, g.v as version_no, coalesce(sv.name, p.name) as name,
        coalesce(sv.json_schema, p.json_schema) as json_schema, g.linked_workflows, g.linked_events, p.created_at
      from grouped g join payload_schemas p on p.workspace_id = ${workspaceId} and p.slug = g.slug
      left join payload_schema_versions sv on sv.schema_id = p.id and sv.version_no = coalesce(g.v, p.live_version_no)
      order by g.slug, g.v nulls first
      limit ${page.limit} offset ${page.offset}`.execute(db),
    sql<{ count: number | string }>`${grouped}
      select count(*) as count from grouped g
      join payload_schemas p on p.workspace_id = ${workspaceId} and p.slug = g.slug`.execute(db),
  ]);
  return { rows, count: Number(total[0]?.count ?? 0) };
}

/** For each link, the schema it names (if any), whether it was committed and whether the pinned version exists. One statement. */
export async function findSchemaLinkTargets(
  db: Db,
  workspaceId: number,
  links: { schema: string; version_no: number | null }[],
) {
  if (links.length === 0) return [];
  const { rows } = await sql<{
    slug: string;
    version_no: number | null;
    schema_id: number | null;
    live_version_no: number | null;
    version_exists: boolean;
  }>`select l.s as slug, l.v as version_no, p.id as schema_id, p.live_version_no,
      exists (select 1 from payload_schema_versions v where v.schema_id = p.id and v.version_no = l.v) as version_exists
    from jsonb_to_recordset(${JSON.stringify(links.map((l, n) => ({ s: l.schema, v: l.version_no, n })))}::jsonb)
      as l(s text, v integer, n integer)
    left join payload_schemas p on p.workspace_id = ${workspaceId} and p.slug = l.s
    order by l.n`.execute(db);
  return rows;
}
