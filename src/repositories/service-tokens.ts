import type { Db } from '../db/database.js';
import type { ActorColumn } from '../db/types.js';
import { hashToken, randomToken } from '../crypto/tokens.js';
import { prefixedId } from '../ids.js';

export const SERVICE_TOKEN_PREFIX = 'hst_';

/** Creates a token tied to an actor; the token itself is returned once and only its hash is kept. */
export async function createServiceToken(db: Db, actor: ActorColumn | null) {
  const token = randomToken(SERVICE_TOKEN_PREFIX);
  const row = await db
    .insertInto('service_tokens')
    .values({
      id: prefixedId('st_'),
      token_hash: hashToken(token),
      actor_name: actor?.name ?? null,
      actor_email: actor?.email ?? null,
    })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return { ...row, token };
}

/** A live token, given by its hash. */
export function findActiveServiceToken(db: Db, tokenHash: string) {
  return db
    .selectFrom('service_tokens')
    .select(['id', 'actor_name', 'actor_email'])
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** Revokes by id or by the token itself; returns the id of the live token revoked, if any. */
export async function revokeServiceToken(db: Db, idOrToken: string): Promise<string | undefined> {
  const row = await db
    .updateTable('service_tokens')
    .set({ revoked_at: new Date() })
    .where((eb) => eb.or([eb('id', '=', idOrToken), eb('token_hash', '=', hashToken(idOrToken))]))
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}
