import type { Kysely } from 'kysely';

// Frozen in time. Users are listed per workspace in id order (cursor pagination).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_workspace_id_idx').on('users').columns(['workspace_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_workspace_id_idx').ifExists().execute();
}
