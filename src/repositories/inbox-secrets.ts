import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** The workspace's inbox secret, sealed (the caller opens it with the SecretBox), or undefined before the first one is made. */
export function findInboxSecret(db: Db, workspaceId: number) {
  return db
    .selectFrom('inbox_secrets')
    .select(['secret_ciphertext', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/** Makes or replaces the workspace's inbox secret in one statement: the old one stops working at once. */
export function replaceInboxSecret(db: Db, workspaceId: number, ciphertext: string) {
  return db
    .insertInto('inbox_secrets')
    .values({ workspace_id: workspaceId, secret_ciphertext: ciphertext })
    .onConflict((oc) =>
      oc.column('workspace_id').doUpdateSet({ secret_ciphertext: ciphertext, created_at: sql<Date>`now()` }),
    )
    .returning(['created_at'])
    .executeTakeFirstOrThrow();
}
