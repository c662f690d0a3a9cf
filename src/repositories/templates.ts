import { sql, type Selectable } from 'kysely';
import type { Db, LockOption } from '../db/database.js';
import type { ActorColumn, TemplatesTable, TemplateVariantsTable, TemplateVersionsTable } from '../db/types.js';

export type TemplateRow = Omit<Selectable<TemplatesTable>, 'workspace_id'>;
export type TemplateVariantRow = Selectable<TemplateVariantsTable>;
export type TemplateVersionRow = Selectable<TemplateVersionsTable>;

export const TEMPLATE_COLUMNS = [
  'id',
  'slug',
  'name',
  'description',
  'tags',
  'enabled_channels',
  'mock_data',
  'live_version_no',
  'created_at',
  'updated_at',
  'updated_by',
  'last_triggered_at',
] as const;

/** `lock` holds the template row until the transaction ends, so commits and variant edits serialize. */
export function findTemplate<H extends Db>(db: H, workspaceId: number, slug: string, options: LockOption<H> = {}) {
  let query = db
    .selectFrom('templates')
    .select(TEMPLATE_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Of these slugs, the templates that exist, each with whether it has a committed (live) version. */
export async function findTemplateStates(db: Db, workspaceId: number, slugs: string[]): Promise<Map<string, boolean>> {
  if (slugs.length === 0) return new Map();
  const rows = await db
    .selectFrom('templates')
    .select(['slug', 'live_version_no'])
    .where('workspace_id', '=', workspaceId)
    .where('slug', 'in', slugs)
    .execute();
  return new Map(rows.map((row) => [row.slug, row.live_version_no !== null]));
}

export interface TemplateMetadata {
  name: string;
  description: string | null;
  tags: string[];
  enabled_channels: string[];
}

/**
 * Creates the template or replaces its draft metadata; fields left out of the body keep their value
 * (a new template without a name is named after its slug, as the hosted platform's CLI creates them).
 */
export function upsertTemplateDraft(
  db: Db,
  workspaceId: number,
  input: { slug: string; metadata: Partial<TemplateMetadata>; actor: ActorColumn | null },
) {
  const { metadata } = input;
  const values = {
    ...(metadata.name !== undefined && { name: metadata.name }),
    ...(metadata.description !== undefined && { description: metadata.description }),
    ...(metadata.tags !== undefined && { tags: JSON.stringify(metadata.tags) }),
    ...(metadata.enabled_channels !== undefined && { enabled_channels: JSON.stringify(metadata.enabled_channels) }),
    updated_at: sql<Date>`now()`,
    updated_by: JSON.stringify(input.actor),
  };
  return db
    .insertInto('templates')
    .values({ workspace_id: workspaceId, slug: input.slug, name: input.slug, ...values })
    .onConflict((oc) => oc.columns(['workspace_id', 'slug']).doUpdateSet(values))
    .returning(TEMPLATE_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function touchTemplate(db: Db, templateId: number, actor: ActorColumn | null) {
  return db
    .updateTable('templates')
    .set({ updated_at: sql<Date>`now()`, updated_by: JSON.stringify(actor) })
    .where('id', '=', templateId)
    .returning(TEMPLATE_COLUMNS)
    .executeTakeFirstOrThrow();
}

export function setTemplateMockData(db: Db, templateId: number, mockData: Record<string, unknown>) {
  return db
    .updateTable('templates')
    .set({ mock_data: JSON.stringify(mockData) })
    .where('id', '=', templateId)
    .returning(TEMPLATE_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** One page of templates: every one in draft mode, committed ones in live mode; `q` matches name or slug. */
export async function listTemplates(
  db: Db,
  workspaceId: number,
  filter: {
    mode: 'draft' | 'live';
    q?: string;
    limit: number;
    offset: number;
    /** Base surface: committed (true) or never committed (false) only. */
    isActive?: boolean;
    channelsAny?: string[];
    tagsAny?: string[];
  },
) {
  let base = db.selectFrom('templates').where('workspace_id', '=', workspaceId);
  if (filter.mode === 'live' || filter.isActive === true) base = base.where('live_version_no', 'is not', null);
  if (filter.isActive === false) base = base.where('live_version_no', 'is', null);
  const anyOf = (column: 'enabled_channels' | 'tags', values: string[]) =>
    sql<boolean>`${sql.ref(column)} ?| array[${sql.join(values)}]::text[]`;
  if (filter.channelsAny?.length) base = base.where(anyOf('enabled_channels', filter.channelsAny));
  if (filter.tagsAny?.length) base = base.where(anyOf('tags', filter.tagsAny));
  if (filter.q) {
    const pattern = `%${filter.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('slug', 'ilike', pattern)]));
  }
  const [rows, total] = await Promise.all([
    base.select(TEMPLATE_COLUMNS).orderBy('slug').limit(filter.limit).offset(filter.offset).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

const VARIANT_COLUMNS = [
  'template_id',
  'channel',
  'variant_id',
  'locale',
  'tenant_id',
  'conditions',
  'content',
  'seq_no',
  'needs_vendor_approval',
  'created_at',
  'updated_at',
] as const;

/** The draft variants of several templates in one statement. */
export function findDraftVariants(db: Db, templateIds: number[]): Promise<TemplateVariantRow[]> {
  if (templateIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('template_variants')
    .select(VARIANT_COLUMNS)
    .where('template_id', 'in', templateIds)
    .orderBy('channel')
    .orderBy('seq_no')
    .orderBy('variant_id')
    .execute();
}

export function upsertVariant(
  db: Db,
  key: { templateId: number; channel: string; variantId: string },
  input: {
    locale: string;
    tenant_id: string | null;
    conditions: unknown[];
    content: Record<string, unknown>;
    needs_vendor_approval?: boolean;
    seq_no?: number;
  },
) {
  const values = {
    locale: input.locale,
    tenant_id: input.tenant_id,
    conditions: JSON.stringify(input.conditions),
    content: JSON.stringify(input.content),
    ...(input.needs_vendor_approval !== undefined && { needs_vendor_approval: input.needs_vendor_approval }),
    ...(input.seq_no !== undefined && { seq_no: input.seq_no }),
    updated_at: sql<Date>`now()`,
  };
  return db
    .insertInto('template_variants')
    .values({ template_id: key.templateId, channel: key.channel, variant_id: key.variantId, ...values })
    .onConflict((oc) => oc.columns(['template_id', 'channel', 'variant_id']).doUpdateSet(values))
    .returning(VARIANT_COLUMNS)
    .executeTakeFirstOrThrow();
}

/**
 * A delivery used the template: `last_triggered_at` moves forward to `at`. (Ours) written at most once
 * a second per template: a broadcast's thousands of deliveries do not all rewrite one row.
 */
export async function markTemplateTriggered(db: Db, workspaceId: number, slug: string, at: Date) {
  await db
    .updateTable('templates')
    .set({ last_triggered_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .where((eb) =>
      eb.or([eb('last_triggered_at', 'is', null), eb('last_triggered_at', '<', new Date(at.getTime() - 1000))]),
    )
    .execute();
}

/** Sets the draft variants' `seq_no` (the order variant choice breaks ties by), all in one statement. */
export async function setVariantSequence(
  db: Db,
  templateId: number,
  order: { channel: string; variant_id: string; seq_no: number }[],
) {
  if (order.length === 0) return;
  await sql`update template_variants t set seq_no = o.seq_no, updated_at = now()
    from jsonb_to_recordset(${JSON.stringify(order)}::jsonb) as o(channel text, variant_id text, seq_no integer)
    where t.template_id = ${templateId} and t.channel = o.channel and t.variant_id = o.variant_id
      and t.seq_no is distinct from o.seq_no`.execute(db);
}
