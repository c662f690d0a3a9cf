import type { Db } from '../db/database.js';
import { notFound } from '../errors.js';
import { latestTranslationVersion } from '../repositories/translation-history.js';

export async function existingVersion(db: Db, workspaceId: number, versionNo: number) {
  if (versionNo > (await latestTranslationVersion(db, workspaceId)))
    throw notFound(`translation version ${versionNo} not found`);
}
