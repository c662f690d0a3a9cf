import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';

export const PUBLIC_KEY_COLUMNS = [
  'id',
  'api_key',
  'name',
  'allowed_domains',
  'is_secure_mode_enabled',
  'is_default',
  'deleted_at',
  'created_at',
  'created_by',
  'rotated_at',
  'rotated_by',
  'updated_at',
  'updated_by',
] as const;

export function listPublicKeys(db: Db, workspaceId: number) {
  return db
    .selectFrom('ws_public_keys')
    .select(PUBLIC_KEY_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function insertPublicKey(
  db: Db,
  input: {
    id: string;
    workspaceId: number;
    apiKey: string;
    name: string;
    description: string | null;
    actor: ActorColumn | null;
  },
) {
  return db
    .insertInto('ws_public_keys')
    .values({
      id: input.id,
      workspace_id: input.workspaceId,
      api_key: input.apiKey,
      name: input.name,
      description: input.description,
      created_by: JSON.stringify(input.actor),
    })
    .returning(PUBLIC_KEY_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Secure mode, a rotation (new `apiKey`) or a deletion: undefined when no live key of the workspace has that id. */
export function updatePublicKey(
  db: Db,
  workspaceId: number,
  id: string,
  change: { secureMode?: boolean; apiKey?: string; delete?: boolean },
  actor: ActorColumn | null,
) {
  const actorJson = JSON.stringify(actor);
  return db
    .updateTable('ws_public_keys')
    .set({
      updated_at: sql<Date>`now()`,
      updated_by: actorJson,
      ...(change.secureMode !== undefined && { is_secure_mode_enabled: change.secureMode }),
      ...(change.apiKey !== undefined && {
        api_key: change.apiKey,
        rotated_at: sql<Date>`now()`,
        rotated_by: actorJson,
      }),
      ...(change.delete && { deleted_at: sql<Date>`now()` }),
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returning(PUBLIC_KEY_COLUMNS)
    .executeTakeFirst();
}

export const SIGNING_KEY_COLUMNS = [
  'id',
  'uid',
  'status',
  'created_at',
  'created_by',
  'rolled_at',
  'rolled_by',
  'deleted_at',
  'deleted_by',
] as const;

export function listSigningKeys(db: Db, workspaceId: number) {
  return db
    .selectFrom('ws_signing_keys')
    .select(SIGNING_KEY_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('status', '!=', 'deleted')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export function insertSigningKey(
  db: Db,
  input: { id: string; uid: string; workspaceId: number; publicKeyPem: string; actor: ActorColumn | null },
) {
  return db
    .insertInto('ws_signing_keys')
    .values({
      id: input.id,
      uid: input.uid,
      workspace_id: input.workspaceId,
      status: 'active',
      public_key_pem: input.publicKeyPem,
      created_by: JSON.stringify(input.actor),
    })
    .returning(SIGNING_KEY_COLUMNS)
    .executeTakeFirstOrThrow();
}

/** Marks a key rolled (from active) or deleted (from active or rolled); undefined when no such key is in that state. */
export function retireSigningKey(
  db: Db,
  workspaceId: number,
  uid: string,
  to: 'rolled' | 'deleted',
  actor: ActorColumn | null,
) {
  const actorJson = JSON.stringify(actor);
  return db
    .updateTable('ws_signing_keys')
    .set(
      to === 'rolled'
        ? { status: 'rolled', rolled_at: sql<Date>`now()`, rolled_by: actorJson }
        : { status: 'deleted', deleted_at: sql<Date>`now()`, deleted_by: actorJson },
    )
    .where('workspace_id', '=', workspaceId)
    .where('uid', '=', uid)
    .where('status', 'in', to === 'rolled' ? ['active'] : ['active', 'rolled'])
    .returning(SIGNING_KEY_COLUMNS)
    .executeTakeFirst();
}

/** What verifying an inbox token needs, in one statement: the workspace the public key names and its usable signing keys. */
export async function findInboxVerificationKeys(db: Db, publicKey: string) {
  const rows = await db
    .selectFrom('ws_public_keys as p')
    .innerJoin('workspaces as w', 'w.id', 'p.workspace_id')
    .leftJoin('ws_signing_keys as s', (join) =>
      join.onRef('s.workspace_id', '=', 'p.workspace_id').on('s.status', 'in', ['active', 'rolled']),
    )
    .select(['p.workspace_id', 'w.slug', 's.uid', 's.public_key_pem'])
    .where('p.api_key', '=', publicKey)
    .where('p.deleted_at', 'is', null)
    .execute();
  if (rows.length === 0) return undefined;
  return {
    workspaceId: rows[0]!.workspace_id,
    workspaceSlug: rows[0]!.slug,
    signingKeys: rows.flatMap((row) =>
      row.uid && row.public_key_pem ? [{ uid: row.uid, pem: row.public_key_pem }] : [],
    ),
  };
}
