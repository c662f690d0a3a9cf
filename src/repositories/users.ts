import type { Db } from '../db/database.js';

export const USER_COLUMNS = ['id', 'distinct_id', 'properties', 'channels', 'created_at', 'updated_at'] as const;

export function findUserByDistinctId(db: Db, workspaceId: number, distinctId: string) {
  return db
    .selectFrom('users')
    .select(USER_COLUMNS)
    .where('workspace_id', '=', workspaceId)
    .where('distinct_id', '=', distinctId)
    .executeTakeFirst();
}
