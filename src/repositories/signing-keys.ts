import type { Db } from '../db/database.js';
import { WORKSPACE_COLUMNS } from './workspaces.js';

/** The workspace and encrypted secret of a key pair that may sign requests: active and not deleted. */
export function findSigningKey(db: Db, key: string) {
  return db
    .selectFrom('workspace_keys')
    .innerJoin('workspaces', 'workspaces.id', 'workspace_keys.workspace_id')
    .select(['workspace_keys.id as workspace_key_id', 'workspace_keys.secret_ciphertext', ...WORKSPACE_COLUMNS.map((c) => `workspaces.${c}` as const)])
    .where('workspace_keys.key', '=', key)
    .where('workspace_keys.is_active', '=', true)
    .where('workspace_keys.is_deleted', '=', false)
    .executeTakeFirst();
}
