import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { TEMPLATE_COLUMNS, type TemplateVersionRow } from './templates.js';

const VERSION_COLUMNS = [
  'template_id',
  'version_no',
  'name',
  'description',
  'tags',
  'enabled_channels',
  'variants',
  'mock_data',
  'commit_message',
  'committed_at',
  'committed_by',
] as const;

/** The live versions of several templates in one statement (templates never committed have none). */
export function findLiveTemplateVersionRows(
  db: Db,
  templates: { id: number; live_version_no: number | null }[],
): Promise<TemplateVersionRow[]> {
  const live = templates.filter((template) => template.live_version_no !== null);
  if (live.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('template_versions')
    .select(VERSION_COLUMNS)
    .where((eb) =>
      eb.or(
        live.map((template) =>
          eb.and([eb('template_id', '=', template.id), eb('version_no', '=', template.live_version_no!)]),
        ),
      ),
    )
    .execute();
}

/**
 * Snapshots the draft (metadata and the variants of its enabled channels) as the next version and
 * points the template at it. The (template_id, version_no) key turns a racing commit into an error.
 */
export async function commitTemplateDraft(
  db: Db,
  templateId: number,
  input: { commitMessage: string | null; actor: ActorColumn | null },
) {
  const version = await db
    .insertInto('template_versions')
    .columns([
      'template_id',
      'version_no',
      'name',
      'description',
      'tags',
      'enabled_channels',
      'variants',
      'mock_data',
      'commit_message',
      'committed_by',
    ])
    .expression((eb) =>
      eb
        .selectFrom('templates as t')
        .select([
          't.id',
          sql<number>`(select coalesce(max(v.version_no), 0) + 1 from template_versions v where v.template_id = t.id)`.as(
            'version_no',
          ),
          't.name',
          't.description',
          't.tags',
          't.enabled_channels',
          sql`(select coalesce(jsonb_agg(jsonb_build_object(
              'channel', tv.channel, 'variant_id', tv.variant_id, 'locale', tv.locale, 'tenant_id', tv.tenant_id,
              'conditions', tv.conditions, 'content', tv.content, 'seq_no', tv.seq_no,
              'needs_vendor_approval', tv.needs_vendor_approval,
              'created_at', tv.created_at, 'updated_at', tv.updated_at)
              order by tv.channel, tv.seq_no, tv.variant_id), '[]'::jsonb)
            from template_variants tv
            where tv.template_id = t.id and t.enabled_channels ? tv.channel)`.as('variants'),
          't.mock_data',
          sql<string | null>`${input.commitMessage}::text`.as('commit_message'),
          sql`${JSON.stringify(input.actor)}::jsonb`.as('committed_by'),
        ])
        .where('t.id', '=', templateId),
    )
    .returning(VERSION_COLUMNS)
    .executeTakeFirstOrThrow();
  const template = await db
    .updateTable('templates')
    .set({ live_version_no: version.version_no })
    .where('id', '=', templateId)
    .returning(TEMPLATE_COLUMNS)
    .executeTakeFirstOrThrow();
  return { template, version };
}

/**
 * What rendering needs first: which version of the template is live, and when its approvals last changed (cached
 * by both).
 */
export async function findLiveTemplatePointer(db: Db, workspaceId: number, slug: string) {
  const row = await db
    .selectFrom('templates')
    .select(['id', 'live_version_no'])
    .select(
      sql<string | null>`(select max(a.updated_at)::text from template_variant_approvals a
        where a.template_id = templates.id and a.version_no = templates.live_version_no)`.as('approvals_stamp'),
    )
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .where('live_version_no', 'is not', null)
    .executeTakeFirst();
  return row
    ? { id: row.id, live_version_no: row.live_version_no!, approvals_stamp: row.approvals_stamp ?? '' }
    : undefined;
}

export async function findTemplateVersionVariants(db: Db, templateId: number, versionNo: number) {
  const row = await db
    .selectFrom('template_versions')
    .select('variants')
    .where('template_id', '=', templateId)
    .where('version_no', '=', versionNo)
    .executeTakeFirstOrThrow();
  return row.variants;
}
