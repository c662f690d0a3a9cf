import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { hashToken, maskToken, randomToken } from '../crypto/tokens.js';
import { prefixedId } from '../ids.js';
import { API_KEY_ID_PREFIX } from '../schemas/identifiers.js';
import { WORKSPACE_COLUMNS } from './workspaces.js';

export const API_KEY_PREFIX = 'hak_';

export const API_KEY_COLUMNS = [
  'id',
  'workspace_id',
  'name',
  'description',
  'masked_key',
  'created_at',
  'created_by',
  'deleted_at',
  'deleted_by',
] as const;

/** Issues a key; the key itself is returned this once and only its hash is stored. */
export async function createApiKey(
  db: Db,
  input: { workspaceId: number; name: string; description?: string | null; createdBy: ActorColumn | null },
) {
  const apiKey = randomToken(API_KEY_PREFIX);
  const row = await db
    .insertInto('api_keys')
    .values({
      id: prefixedId(API_KEY_ID_PREFIX),
      workspace_id: input.workspaceId,
      name: input.name,
      description: input.description ?? null,
      key_hash: hashToken(apiKey),
      masked_key: maskToken(apiKey),
      created_by: JSON.stringify(input.createdBy),
    })
    .returning(API_KEY_COLUMNS)
    .executeTakeFirstOrThrow();
  return { ...row, apiKey };
}

/** The workspace an API key (given by its hash) authenticates for, if the key exists and is not disabled. */
export function findWorkspaceByApiKey(db: Db, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select(['api_keys.id as api_key_id', ...WORKSPACE_COLUMNS.map((c) => `workspaces.${c}` as const)])
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The workspace's keys, oldest first; disabled keys stay listed (is_deleted). Never the key or its hash. */
export async function listApiKeys(db: Db, workspaceId: number, page: { limit: number; offset: number }) {
  const scope = db.selectFrom('api_keys').where('workspace_id', '=', workspaceId);
  const [rows, total] = await Promise.all([
    scope.select(API_KEY_COLUMNS).orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    scope.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

/**
 * Disables a key of this workspace in one UPDATE: false when no usable key has that id here
 * (unknown, already disabled, or another workspace's). The caller runs it through
 * changeCredentials, so cached lookups of the key are dropped and it fails from the next call on.
 */
export async function disableApiKey(db: Db, input: { workspaceId: number; id: string; deletedBy: ActorColumn | null }) {
  const row = await db
    .updateTable('api_keys')
    .set({ deleted_at: sql<Date>`now()`, deleted_by: JSON.stringify(input.deletedBy) })
    .where('workspace_id', '=', input.workspaceId)
    .where('id', '=', input.id)
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
