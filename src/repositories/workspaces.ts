import type { Db } from '../db/database.js';
import type { Workspace } from '../db/types.js';

export const WORKSPACE_COLUMNS = ['id', 'slug', 'name', 'description', 'mode', 'created_at'] as const;

export function findWorkspaceBySlug(db: Db, slug: string): Promise<Workspace | undefined> {
  return db.selectFrom('workspaces').select(WORKSPACE_COLUMNS).where('slug', '=', slug).executeTakeFirst();
}

/** A workspace's slug by its id (what a vendor's callback URL names). */
export async function findWorkspaceSlug(db: Db, id: number): Promise<string | undefined> {
  const row = await db.selectFrom('workspaces').select('slug').where('id', '=', id).executeTakeFirst();
  return row?.slug;
}

export function insertWorkspace(
  db: Db,
  input: { slug: string; name: string; description?: string | null },
): Promise<Workspace> {
  return db
    .insertInto('workspaces')
    .values({ slug: input.slug, name: input.name, description: input.description ?? null })
    .returning(WORKSPACE_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function listWorkspaces(db: Db, page: { limit: number; offset: number }) {
  const [rows, total] = await Promise.all([
    db.selectFrom('workspaces').select(WORKSPACE_COLUMNS).orderBy('id').limit(page.limit).offset(page.offset).execute(),
    db
      .selectFrom('workspaces')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

export async function countWorkspaces(db: Db): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
