import { sql, type Kysely } from 'kysely';

// Frozen in time. The workspace-key flags move together; the database refuses any row where they disagree.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    alter table workspace_keys
      add constraint workspace_keys_deleted_is_inactive check (not (is_deleted and is_active)),
      add constraint workspace_keys_deleted_at_set check (is_deleted = (deleted_at is not null)),
      add constraint workspace_keys_default_not_deleted check (not (is_default and is_deleted))
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    alter table workspace_keys
      drop constraint if exists workspace_keys_deleted_is_inactive,
      drop constraint if exists workspace_keys_deleted_at_set,
      drop constraint if exists workspace_keys_default_not_deleted
  `.execute(db);
}
