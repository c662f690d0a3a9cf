import { sql } from 'kysely';
import type { Db, LockOption } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { knownCategories } from '../domain/preference-category-rules.js';
import { ROOT_CATEGORIES, type RootCategories } from '../schemas/preference-categories.js';

export interface LivePreferenceCategories {
  /** 0 while the workspace has never committed. */
  version_no: number;
  root_categories: RootCategories;
  commit_message: string | null;
  committed_at: Date | null;
  committed_by: ActorColumn | null;
}

/** What a workspace that never committed has live: the three root categories, no sections. */
export const emptyRootCategories = (): RootCategories =>
  ROOT_CATEGORIES.map((root_category) => ({ root_category, sections: [] }));

/**
 * The live definition: the highest committed version, or the empty definition (version 0).
 * User preferences read categories and their default_preference from here.
 */
export async function findLivePreferenceCategories(db: Db, workspaceId: number): Promise<LivePreferenceCategories> {
  const row = await db
    .selectFrom('preference_category_versions')
    .select(['version_no', 'root_categories', 'commit_message', 'committed_at', 'committed_by'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('version_no', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!row)
    return {
      version_no: 0,
      root_categories: emptyRootCategories(),
      commit_message: null,
      committed_at: null,
      committed_by: null,
    };
  return { ...row, committed_by: row.committed_by ?? null };
}

/** The names a workflow's `category` may use: live root categories and subcategory slugs. */
export async function findLiveCategoryNames(db: Db, workspaceId: number): Promise<Set<string>> {
  return knownCategories((await findLivePreferenceCategories(db, workspaceId)).root_categories);
}

/** The pending draft, if any; `lock` holds it until the transaction ends, so commits serialize. */
export async function findPreferenceCategoryDraft<H extends Db>(
  db: H,
  workspaceId: number,
  options: LockOption<H> = {},
) {
  let query = db
    .selectFrom('preference_category_drafts')
    .select(['root_categories', 'updated_at', 'updated_by'])
    .where('workspace_id', '=', workspaceId);
  if (options.lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { ...row, updated_by: row.updated_by ?? null };
}

/** Replaces the draft (POST replaces, never merges). */
export async function savePreferenceCategoryDraft(
  db: Db,
  workspaceId: number,
  roots: RootCategories,
  actor: ActorColumn | null,
) {
  const values = {
    root_categories: JSON.stringify(roots),
    updated_at: sql<Date>`now()`,
    updated_by: JSON.stringify(actor),
  };
  const row = await db
    .insertInto('preference_category_drafts')
    .values({ workspace_id: workspaceId, ...values })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet(values))
    .returning(['root_categories', 'updated_at', 'updated_by'])
    .executeTakeFirstOrThrow();
  return { ...row, updated_by: row.updated_by ?? null };
}

export async function deletePreferenceCategoryDraft(db: Db, workspaceId: number) {
  await db.deleteFrom('preference_category_drafts').where('workspace_id', '=', workspaceId).execute();
}

/**
 * Appends the next version (live + 1) in one statement. The (workspace_id, version_no) primary key
 * turns a racing commit that computed the same number into a unique violation instead of a duplicate.
 */
export async function insertPreferenceCategoryVersion(
  db: Db,
  workspaceId: number,
  input: { roots: RootCategories; commitMessage: string | null; actor: ActorColumn | null },
): Promise<LivePreferenceCategories> {
  const row = await db
    .insertInto('preference_category_versions')
    .columns(['workspace_id', 'version_no', 'root_categories', 'commit_message', 'committed_by'])
    .expression((eb) =>
      eb
        .selectFrom('preference_category_versions')
        .select([
          sql<number>`${workspaceId}::integer`.as('workspace_id'),
          sql<number>`coalesce(max(version_no), 0) + 1`.as('version_no'),
          sql`${JSON.stringify(input.roots)}::jsonb`.as('root_categories'),
          sql`${input.commitMessage}::text`.as('commit_message'),
          sql`${JSON.stringify(input.actor)}::jsonb`.as('committed_by'),
        ])
        .where('workspace_id', '=', workspaceId),
    )
    .returning(['version_no', 'root_categories', 'commit_message', 'committed_at', 'committed_by'])
    .executeTakeFirstOrThrow();
  return { ...row, committed_by: row.committed_by ?? null };
}

type Draft = NonNullable<Awaited<ReturnType<typeof findPreferenceCategoryDraft>>>;

/** A definition as a service shows it: the live one, or the draft (with its errors) over the live one. */
export type ShownDefinition =
  | { mode: 'live'; live: LivePreferenceCategories }
  | { mode: 'draft'; draft: Draft | undefined; live: LivePreferenceCategories; errors: string[] };
