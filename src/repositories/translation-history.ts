import { sql } from 'kysely';
import type { Db, Trx } from '../db/database.js';

export interface FileAtVersion {
  filename: string;
  /** What `version_no` itself did to the file; 'unchanged' when an earlier version last changed it. */
  action: string;
  content: Record<string, unknown> | null;
  /** When the version that last changed the file was committed. */
  updated_at: Date;
}

/** The highest committed version of the workspace's translations, 0 when none. */
export async function latestTranslationVersion(db: Db, workspaceId: number): Promise<number> {
  const row = await db
    .selectFrom('translation_versions')
    .select((eb) => eb.fn.max<number | null>('version_no').as('latest'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.latest ?? 0);
}

/**
 * Every file as version `versionNo` left it, in one statement: each file's last change at or before
 * that version. Files that version deleted are included (action 'deleted', content null); files
 * deleted earlier are not.
 */
export async function translationFilesAtVersion(db: Db, workspaceId: number, versionNo: number) {
  const { rows } = await sql<FileAtVersion & { version_no: number }>`
    select * from (
      select distinct on (c.value ->> 'filename') c.value ->> 'filename' as filename, v.version_no,
        c.value ->> 'action' as action, c.value -> 'content' as content, v.committed_at as updated_at
      from translation_versions v cross join jsonb_array_elements(v.changes) as c(value)
      where v.workspace_id = ${workspaceId} and v.version_no <= ${versionNo}
      order by c.value ->> 'filename', v.version_no desc
    ) last_change
    where action <> 'deleted' or version_no = ${versionNo}
    order by filename`.execute(db);
  return rows.map((row) => ({
    ...row,
    action: row.version_no === versionNo ? row.action : 'unchanged',
    content: row.content === null || typeof row.content === 'object' ? row.content : null,
  }));
}

/**
 * Makes the draft exactly `files` (filename → content), in three statements whatever their number,
 * after locking every file of the workspace: named files get that content as their draft; other
 * files that are live get marked for deletion; other files never committed are dropped.
 */
export async function replaceTranslationDraft(
  trx: Trx,
  workspaceId: number,
  files: { filename: string; locale: string; namespace: string | null; content: Record<string, unknown> }[],
  actor: unknown,
) {
  await trx
    .selectFrom('translation_files')
    .select('filename')
    .where('workspace_id', '=', workspaceId)
    .orderBy('filename')
    .forUpdate()
    .execute();
  const names = JSON.stringify(files.map((file) => file.filename));
  await sql`
    insert into translation_files (workspace_id, filename, locale, namespace, draft_content, draft_updated_at, draft_updated_by)
    select ${workspaceId}, f.filename, f.locale, f.namespace, f.content, now(), ${JSON.stringify(actor)}::jsonb
    from jsonb_to_recordset(${JSON.stringify(files)}::jsonb) as f(filename text, locale text, namespace text, content jsonb)
    order by f.filename
    on conflict (workspace_id, filename) do update set draft_content = excluded.draft_content,
      draft_updated_at = excluded.draft_updated_at, draft_updated_by = excluded.draft_updated_by`.execute(trx);
  await sql`
    with dropped as (
      delete from translation_files where workspace_id = ${workspaceId} and live_content is null
        and filename not in (select value from jsonb_array_elements_text(${names}::jsonb))
    )
    update translation_files set draft_content = null, draft_updated_at = now(), draft_updated_by = ${JSON.stringify(actor)}::jsonb
    where workspace_id = ${workspaceId} and live_content is not null
      and filename not in (select value from jsonb_array_elements_text(${names}::jsonb))`.execute(trx);
}
