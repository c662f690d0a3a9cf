import type { Selectable } from 'kysely';
import type { SecretBox } from '../crypto/secret-box.js';
import type { WorkspaceKeysTable } from '../db/types.js';
import { iso, isoOrNull } from '../schemas/common.js';
import type { WorkspaceKey } from '../schemas/workspace-keys.js';

type WorkspaceKeyRow = Omit<Selectable<WorkspaceKeysTable>, 'workspace_id'>;

export function presentWorkspaceKey(row: WorkspaceKeyRow, box: SecretBox): WorkspaceKey {
  return {
    id: row.id,
    name: row.name,
    key: row.key,
    secret: box.decrypt(row.secret_ciphertext),
    is_default: row.is_default,
    is_active: row.is_active,
    is_deleted: row.is_deleted,
    allowed_domains: row.allowed_domains,
    created_at: iso(row.created_at),
    created_by: row.created_by ?? null,
    rotated_at: isoOrNull(row.rotated_at),
    rotated_by: row.rotated_by ?? null,
    deleted_at: isoOrNull(row.deleted_at),
    deleted_by: row.deleted_by ?? null,
  };
}
