import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import type { SecretBox } from '../auth/secret-box.js';
import { newWorkspaceSecret, WORKSPACE_KEY_COLUMNS } from './workspace-keys.js';

/**
 * State changes of a workspace pair. Each is one UPDATE … RETURNING on a pair that is not
 * deleted: the row lock serialises concurrent changes, and what a caller gets back is exactly
 * what it wrote. `undefined` means no live pair matched (unknown, deleted, or — for delete — default).
 */
const updateLivePair = (db: Db, workspaceId: number, id: string) =>
  db.updateTable('workspace_keys').where('workspace_id', '=', workspaceId).where('id', '=', id).where('is_deleted', '=', false);

/** A new secret, same key. The old secret stops authenticating as soon as this commits. */
export function rotateWorkspaceKeySecret(db: Db, box: SecretBox, input: { workspaceId: number; id: string; rotatedBy: ActorColumn | null }) {
  return updateLivePair(db, input.workspaceId, input.id)
    .set({ secret_ciphertext: box.encrypt(newWorkspaceSecret()), rotated_at: sql<Date>`now()`, rotated_by: JSON.stringify(input.rotatedBy) })
    .returning(WORKSPACE_KEY_COLUMNS)
    .executeTakeFirst();
}

/** Soft delete: the pair stays listed with is_deleted, can no longer authenticate, and never comes back. */
export function deleteWorkspaceKey(db: Db, input: { workspaceId: number; id: string; deletedBy: ActorColumn | null }) {
  return updateLivePair(db, input.workspaceId, input.id)
    .where('is_default', '=', false)
    .set({ is_deleted: true, is_active: false, deleted_at: sql<Date>`now()`, deleted_by: JSON.stringify(input.deletedBy) })
    .returning('id')
    .executeTakeFirst();
}

/** Pause (false) or resume (true) a pair; setting the current value again is a no-op that succeeds. */
export function setWorkspaceKeyActive(db: Db, input: { workspaceId: number; id: string; isActive: boolean }) {
  return updateLivePair(db, input.workspaceId, input.id)
    .set({ is_active: input.isActive })
    .returning(WORKSPACE_KEY_COLUMNS)
    .executeTakeFirst();
}
