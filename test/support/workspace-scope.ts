import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

/** Tables that hold no single workspace's data: everything else must carry `workspace_id`. */
export const ACCOUNT_TABLES = ['workspaces', 'service_tokens'];

/** The current schema's tables, with whether each has a `workspace_id` column. */
export async function tablesWithScope(db: Db): Promise<{ table: string; scoped: boolean }[]> {
  const { rows } = await sql<{ table_name: string; scoped: boolean }>`
    select t.table_name,
           exists (select 1 from information_schema.columns c
                   where c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name = 'workspace_id') as scoped
    from information_schema.tables t
    where t.table_schema = current_schema() and t.table_type = 'BASE TABLE' and t.table_name not like 'kysely_%'
    order by t.table_name`.execute(db);
  return rows.map((row) => ({ table: row.table_name, scoped: Boolean(row.scoped) }));
}

const rowsDigest = (table: string, where: ReturnType<typeof sql>) =>
  sql`(select count(*) || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') from ${sql.table(table)} t where ${where})`;

/**
 * One string per table that changes when any row of that workspace changes: its rows in every
 * scoped table, its own `workspaces` row, and (with `accountTables`) every row of those, in one statement.
 */
export async function workspaceFingerprint(
  db: Db,
  workspaceId: number,
  scopedTables: string[],
  accountTables: string[] = [],
): Promise<Record<string, string>> {
  const names = ['workspace', ...scopedTables, ...accountTables];
  const parts = [
    rowsDigest('workspaces', sql`t.id = ${workspaceId}`),
    ...scopedTables.map((table) => rowsDigest(table, sql`t.workspace_id = ${workspaceId}`)),
    ...accountTables.map((table) => rowsDigest(table, sql`true`)),
  ];
  const { rows } = await sql<{ fingerprint: string }>`select concat_ws(',', ${sql.join(parts)}) as fingerprint`.execute(db);
  const values = rows[0]!.fingerprint.split(',');
  return Object.fromEntries(names.map((table, i) => [table, values[i]!]));
}

export const changedTables = (before: Record<string, string>, after: Record<string, string>) =>
  Object.keys(before).filter((table) => before[table] !== after[table]);
