import type { Selectable } from 'kysely';
import type { ApiKeysTable } from '../db/types.js';
import type { ApiKey } from '../schemas/api-keys.js';
import { iso, isoOrNull } from '../schemas/common.js';

/** ApiKey: the mask only; the full key is added by the create route, once. */
export function presentApiKey(row: Omit<Selectable<ApiKeysTable>, 'workspace_id' | 'key_hash'>): ApiKey {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    masked_api_key: row.masked_key,
    is_deleted: row.deleted_at !== null,
    created_at: iso(row.created_at),
    created_by: row.created_by ?? null,
    deleted_at: isoOrNull(row.deleted_at),
    deleted_by: row.deleted_by ?? null,
  };
}
