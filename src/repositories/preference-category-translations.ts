import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';

export function listCategoryTranslationLocales(db: Db, workspaceId: number) {
  return db
    .selectFrom('preference_category_translations')
    .select('locale')
    .where('workspace_id', '=', workspaceId)
    .orderBy('locale')
    .execute();
}

export function findCategoryTranslation(db: Db, workspaceId: number, locale: string) {
  return db
    .selectFrom('preference_category_translations')
    .select(['content'])
    .where('workspace_id', '=', workspaceId)
    .where('locale', '=', locale)
    .executeTakeFirst();
}

/** Stores the locale's translation, replacing the one before. One statement. */
export function saveCategoryTranslation(
  db: Db,
  workspaceId: number,
  locale: string,
  content: Record<string, unknown>,
  actor: ActorColumn | null,
) {
  const values = { content: JSON.stringify(content), updated_by: JSON.stringify(actor) };
  return db
    .insertInto('preference_category_translations')
    .values({ workspace_id: workspaceId, locale, ...values })
    .onConflict((oc) => oc.columns(['workspace_id', 'locale']).doUpdateSet({ ...values, updated_at: new Date() }))
    .returning(['content'])
    .executeTakeFirstOrThrow();
}

export async function deleteCategoryTranslation(db: Db, workspaceId: number, locale: string): Promise<boolean> {
  const result = await db
    .deleteFrom('preference_category_translations')
    .where('workspace_id', '=', workspaceId)
    .where('locale', '=', locale)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
