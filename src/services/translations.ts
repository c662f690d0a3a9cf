import type { Db, Trx } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { LOCALE_FILE_RULE, localeMatches, parseLocaleFile } from '../domain/translation-files.js';
import { badRequest, notFoundErrors } from '../errors.js';
import { commitTranslations as commitTranslationDraft } from '../repositories/translation-versions.js';
import {
  findTranslationFile,
  listTranslationFiles,
  markTranslationDeleted,
  upsertTranslationDraft,
} from '../repositories/translations.js';
import type { Mode } from '../schemas/versioning.js';

/**
 * Translation files: uploads and deletions collect in the workspace's draft; one commit makes
 * all of them live at once, as a numbered version.
 */

export const listTranslations = (
  db: Db,
  workspaceId: number,
  query: { mode: Mode; limit: number; offset: number; include_content?: boolean; include_version_info?: boolean },
) =>
  listTranslationFiles(
    db,
    workspaceId,
    query.mode,
    { limit: query.limit, offset: query.offset },
    { content: query.include_content, versionInfo: query.include_version_info },
  );

export async function getTranslation(db: Db, workspaceId: number, filename: string, mode: Mode) {
  const file = await findTranslationFile(db, workspaceId, filename, mode);
  if (!file) throw notFoundErrors.translationFile(filename, mode);
  return file;
}

/** The file name says the locale (and namespace); a `locale` in the body must agree with it. */
export function uploadTranslation(
  db: Db,
  workspaceId: number,
  filename: string,
  body: { locale?: string; content: Record<string, unknown> },
  actor: ActorColumn | null,
) {
  const file = parseLocaleFile(filename);
  if (!file)
    throw badRequest(`locale_file '${filename}' is invalid: name it ${LOCALE_FILE_RULE}`, {
      locale_file: `must be ${LOCALE_FILE_RULE}`,
    });
  if (body.locale !== undefined && !localeMatches(file, body.locale)) {
    throw badRequest(
      `locale '${body.locale}' does not match the file '${filename}', whose locale is '${file.locale}'`,
      {
        locale: `must be '${file.locale}'`,
      },
    );
  }
  return upsertTranslationDraft(db, workspaceId, file, body.content, actor);
}

/** Marks a file for deletion: it stays live until the next commit. */
export async function deleteTranslation(trx: Trx, workspaceId: number, filename: string, actor: ActorColumn | null) {
  if (!(await markTranslationDeleted(trx, workspaceId, filename, actor)))
    throw notFoundErrors.translationFile(filename);
}

/** Uploads become live, files marked for deletion are removed; a 400 when nothing changed since the last commit. */
export async function commitTranslations(
  trx: Trx,
  workspaceId: number,
  input: { commitMessage: string | null; actor: ActorColumn | null },
) {
  const committed = await commitTranslationDraft(trx, workspaceId, input);
  if (!committed) throw badRequest('nothing to commit: no translation file changed since the last commit');
  return committed;
}
