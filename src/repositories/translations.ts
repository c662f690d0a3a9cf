import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import type { LocaleFile } from '../domain/translation-files.js';

type Mode = 'draft' | 'live';

/** The draft's change against live, computed where the contents are (no content leaves the database for a list). */
const draftAction = sql<string>`case
  when draft_content is null then 'deleted'
  when live_content is null then 'added'
  when draft_content = live_content then 'unchanged'
  else 'updated' end`;

const FILE_COLUMNS = ['filename', 'locale', 'namespace'] as const;

const viewColumns = (mode: Mode) =>
  mode === 'draft'
    ? ([...FILE_COLUMNS, draftAction.as('action'), sql<Date>`draft_updated_at`.as('updated_at')] as const)
    : ([...FILE_COLUMNS, sql<string>`live_action`.as('action'), sql<Date>`live_updated_at`.as('updated_at')] as const);

/** Uploads into the draft: a new file, a new version of a file, or the revival of one marked for deletion. */
export function upsertTranslationDraft(
  db: Db,
  workspaceId: number,
  file: LocaleFile,
  content: Record<string, unknown>,
  actor: ActorColumn | null,
) {
  const values = {
    draft_content: JSON.stringify(content),
    draft_updated_at: sql<Date>`now()`,
    draft_updated_by: JSON.stringify(actor),
  };
  return db
    .insertInto('translation_files')
    .values({
      workspace_id: workspaceId,
      filename: file.filename,
      locale: file.locale,
      namespace: file.namespace,
      ...values,
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'filename']).doUpdateSet(values))
    .returning([...viewColumns('draft'), 'draft_content as content'])
    .executeTakeFirstOrThrow();
}

/** One file as the mode sees it: draft (a file marked for deletion shows the content it will lose) or live. */
export function findTranslationFile(db: Db, workspaceId: number, filename: string, mode: Mode) {
  let query = db
    .selectFrom('translation_files')
    .select(viewColumns(mode))
    .select(
      mode === 'draft'
        ? sql<Record<string, unknown>>`coalesce(draft_content, live_content)`.as('content')
        : 'live_content as content',
    )
    .where('workspace_id', '=', workspaceId)
    .where('filename', '=', filename);
  if (mode === 'live') query = query.where('live_content', 'is not', null);
  return query.executeTakeFirst();
}

export async function listTranslationFiles(
  db: Db,
  workspaceId: number,
  mode: Mode,
  page: { limit: number; offset: number },
  include: { content?: boolean; versionInfo?: boolean } = {},
) {
  let base = db.selectFrom('translation_files').where('workspace_id', '=', workspaceId);
  if (mode === 'live') base = base.where('live_content', 'is not', null);
  const content =
    mode === 'draft'
      ? sql<Record<string, unknown>>`coalesce(draft_content, live_content)`
      : sql<Record<string, unknown>>`live_content`;
  // The workspace's last translation version: every live file is as that commit left it.
  const liveVersion = sql<number | null>`(select max(v.version_no) from translation_versions v
    where v.workspace_id = ${workspaceId})`;
  const [rows, total] = await Promise.all([
    base
      .select(viewColumns(mode))
      .$if(include.content === true, (query) => query.select(content.as('content')))
      .$if(include.versionInfo === true, (query) => query.select(liveVersion.as('live_version_no')))
      .orderBy('filename')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

/**
 * Marks a file for deletion at the next commit. A file that was never committed has nothing
 * live to remove, so its upload is simply discarded. Returns false when there is no such file.
 */
export async function markTranslationDeleted(
  trx: Trx,
  workspaceId: number,
  filename: string,
  actor: ActorColumn | null,
): Promise<boolean> {
  const discarded = await trx
    .deleteFrom('translation_files')
    .where('workspace_id', '=', workspaceId)
    .where('filename', '=', filename)
    .where('live_content', 'is', null)
    .returning('filename')
    .executeTakeFirst();
  if (discarded) return true;
  const marked = await trx
    .updateTable('translation_files')
    .set({ draft_content: null, draft_updated_at: sql<Date>`now()`, draft_updated_by: JSON.stringify(actor) })
    .where('workspace_id', '=', workspaceId)
    .where('filename', '=', filename)
    .returning('filename')
    .executeTakeFirst();
  return marked !== undefined;
}

/** The committed content of the workspace's translation files in the given locales (one statement). */
export function findLiveTranslations(db: Db, workspaceId: number, locales: string[]) {
  return db
    .selectFrom('translation_files')
    .select(['locale', 'namespace', sql<Record<string, unknown>>`live_content`.as('content')])
    .where('workspace_id', '=', workspaceId)
    .where('locale', 'in', locales)
    .where('live_content', 'is not', null)
    .execute();
}
