import type { Db } from '../db/database.js';

/** The tree of one committed workflow version (immutable once committed). */
export async function findVersionTree(db: Db, workflowId: number, versionNo: number): Promise<unknown> {
  const row = await db
    .selectFrom('workflow_versions')
    .select('tree')
    .where('workflow_id', '=', workflowId)
    .where('version_no', '=', versionNo)
    .executeTakeFirst();
  return row?.tree;
}
