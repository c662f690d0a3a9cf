import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { randomToken } from '../crypto/tokens.js';
import { prefixedId } from '../ids.js';
import { WORKSPACE_KEY_ID_PREFIX } from '../schemas/identifiers.js';
import { conflict } from '../errors.js';
import { WORKSPACE_COLUMNS } from './workspaces.js';

export const WORKSPACE_KEY_COLUMNS = [
  'id',
  'workspace_id',
  'name',
  'key',
  'secret_ciphertext',
  'is_default',
  'is_active',
  'is_deleted',
  'allowed_domains',
  'created_at',
  'created_by',
  'rotated_at',
  'rotated_by',
  'deleted_at',
  'deleted_by',
] as const;

export const newWorkspaceSecret = () => randomToken('wss_');

/**
 * Creates a key/secret pair; the secret is stored encrypted and returned in plain text.
 * A name already used by one of the workspace's pairs (deleted ones included) is a conflict
 * naming it; the unique constraint decides, so two concurrent creates cannot both win.
 */
export async function createWorkspaceKey(
  db: Db,
  box: SecretBox,
  input: {
    workspaceId: number;
    name: string;
    isDefault: boolean;
    allowedDomains?: string[];
    createdBy: ActorColumn | null;
  },
) {
  const secret = newWorkspaceSecret();
  const row = await db
    .insertInto('workspace_keys')
    .values({
      id: prefixedId(WORKSPACE_KEY_ID_PREFIX),
      workspace_id: input.workspaceId,
      name: input.name,
      key: randomToken('wsk_', 18),
      secret_ciphertext: box.encrypt(secret),
      is_default: input.isDefault,
      allowed_domains: input.allowedDomains ?? [],
      created_by: JSON.stringify(input.createdBy),
    })
    .onConflict((oc) => oc.columns(['workspace_id', 'name']).doNothing())
    .returning(WORKSPACE_KEY_COLUMNS)
    .executeTakeFirst();
  if (!row)
    throw conflict(`a workspace key named '${input.name}' already exists in this workspace`, { name: 'is taken' });
  return { ...row, secret };
}

/** The workspace's pairs, default first then oldest first; deleted pairs stay listed (is_deleted). */
export async function listWorkspaceKeys(db: Db, workspaceId: number, page: { limit: number; offset: number }) {
  const scope = db.selectFrom('workspace_keys').where('workspace_id', '=', workspaceId);
  const [rows, total] = await Promise.all([
    scope
      .select(WORKSPACE_KEY_COLUMNS)
      .orderBy('is_default', 'desc')
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    scope.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { rows, count: Number(total.count) };
}

/** One pair of the workspace, deleted or not; a pair of another workspace is never found. */
export function findWorkspaceKey(db: Db, workspaceId: number, id: string) {
  return db
    .selectFrom('workspace_keys')
    .select(WORKSPACE_KEY_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Whether `key` is a pair of this workspace that has not been deleted (the legacy calls name it in their path). */
export async function hasWorkspaceKey(db: Db, workspaceId: number, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('workspace_keys')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .where('is_deleted', '=', false)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The pair a signed base request names by its key, with its workspace, only while the pair
 * may authenticate (active and not deleted). Read on every request, so pausing, deleting or
 * rotating takes effect at once. The caller decrypts `secret_ciphertext` with the SecretBox.
 */
export function findAuthenticatingWorkspaceKey(db: Db, key: string) {
  return db
    .selectFrom('workspace_keys')
    .innerJoin('workspaces', 'workspaces.id', 'workspace_keys.workspace_id')
    .select([
      'workspace_keys.id as workspace_key_id',
      'workspace_keys.secret_ciphertext',
      ...WORKSPACE_COLUMNS.map((c) => `workspaces.${c}` as const),
    ])
    .where('workspace_keys.key', '=', key)
    .where('workspace_keys.is_active', '=', true)
    .where('workspace_keys.is_deleted', '=', false)
    .executeTakeFirst();
}

/**
 * State changes of a workspace pair. Each is one UPDATE … RETURNING on a pair that is not
 * deleted: the row lock serialises concurrent changes, and what a caller gets back is exactly
 * what it wrote. `undefined` means no live pair matched (unknown, deleted, or — for delete — default).
 */
const updateLivePair = (db: Db, workspaceId: number, id: string) =>
  db
    .updateTable('workspace_keys')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('is_deleted', '=', false);

/** A new secret, same key. The old secret stops authenticating as soon as this commits. */
export function rotateWorkspaceKeySecret(
  db: Db,
  box: SecretBox,
  input: { workspaceId: number; id: string; rotatedBy: ActorColumn | null },
) {
  return updateLivePair(db, input.workspaceId, input.id)
    .set({
      secret_ciphertext: box.encrypt(newWorkspaceSecret()),
      rotated_at: sql<Date>`now()`,
      rotated_by: JSON.stringify(input.rotatedBy),
    })
    .returning(WORKSPACE_KEY_COLUMNS)
    .executeTakeFirst();
}

/** Soft delete: the pair stays listed with is_deleted, can no longer authenticate, and never comes back. */
export function deleteWorkspaceKey(db: Db, input: { workspaceId: number; id: string; deletedBy: ActorColumn | null }) {
  return updateLivePair(db, input.workspaceId, input.id)
    .where('is_default', '=', false)
    .set({
      is_deleted: true,
      is_active: false,
      deleted_at: sql<Date>`now()`,
      deleted_by: JSON.stringify(input.deletedBy),
    })
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

/** The workspace's default pair: every workspace has exactly one. */
export function findDefaultWorkspaceKey(db: Db, workspaceId: number) {
  return db
    .selectFrom('workspace_keys')
    .select(['key', 'secret_ciphertext'])
    .where('workspace_id', '=', workspaceId)
    .where('is_default', '=', true)
    .executeTakeFirstOrThrow();
}

/** The pair that authenticates for the workspace now: the default one if it may, else the oldest live active one. */
export function findSigningWorkspaceKey(db: Db, workspaceId: number) {
  return db
    .selectFrom('workspace_keys')
    .select(['key', 'secret_ciphertext'])
    .where('workspace_id', '=', workspaceId)
    .where('is_active', '=', true)
    .where('is_deleted', '=', false)
    .orderBy('is_default', 'desc')
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}
