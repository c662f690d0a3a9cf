import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';

/** Tables that hold no single workspace's data. */
/** Tables of the installation, not of a workspace (herald_settings: the secret key's fingerprint). */
export const ACCOUNT_TABLES = ['workspaces', 'service_tokens', 'herald_settings'];

/**
 * How a table's rows belong to a workspace: by its own `workspace_id`, or through a NOT NULL
 * foreign key to a table that has one (subscriptions → objects); null when neither.
 */
export type Scope = { kind: 'own' } | { kind: 'parent'; column: string; parent: string; parentColumn: string } | null;

export async function tablesWithScope(db: Db): Promise<{ table: string; scope: Scope }[]> {
  const { rows: tables } = await sql<{ table_name: string; own: boolean }>`
    select t.table_name,
           exists (select 1 from information_schema.columns c
                   where c.table_schema = t.table_schema and c.table_name = t.table_name and c.column_name = 'workspace_id') as own
    from information_schema.tables t
    where t.table_schema = current_schema() and t.table_type = 'BASE TABLE' and t.table_name not like 'kysely_%'
    order by t.table_name`.execute(db);
  const { rows: keys } = await sql<{ child: string; column: string; parent: string; parent_column: string }>`
    select child.relname as child, a.attname as column, parent.relname as parent, pa.attname as parent_column
    from pg_constraint c
    join pg_class child on child.oid = c.conrelid
    join pg_class parent on parent.oid = c.confrelid
    join pg_attribute a on a.attrelid = c.conrelid and a.attnum = c.conkey[1]
    join pg_attribute pa on pa.attrelid = c.confrelid and pa.attnum = c.confkey[1]
    where c.contype = 'f' and cardinality(c.conkey) = 1 and a.attnotnull
      and child.relnamespace = (select oid from pg_namespace where nspname = current_schema())
    order by child.relname, a.attname`.execute(db);
  const own = new Set(tables.filter((t) => t.own).map((t) => t.table_name));
  return tables.map(({ table_name: table }) => {
    if (own.has(table)) return { table, scope: { kind: 'own' } as const };
    const key = keys.find((k) => k.child === table && own.has(k.parent));
    return {
      table,
      scope: key
        ? { kind: 'parent' as const, column: key.column, parent: key.parent, parentColumn: key.parent_column }
        : null,
    };
  });
}

const rowsDigest = (table: string, where: ReturnType<typeof sql>) =>
  sql`(select count(*) || ':' || coalesce(md5(string_agg(t::text, '|' order by t::text)), '') from ${sql.table(table)} t where ${where})`;

const belongsTo = (scope: NonNullable<Scope>, workspaceId: number) =>
  scope.kind === 'own'
    ? sql`t.workspace_id = ${workspaceId}`
    : sql`exists (select 1 from ${sql.table(scope.parent)} p where p.${sql.ref(scope.parentColumn)} = t.${sql.ref(scope.column)} and p.workspace_id = ${workspaceId})`;

/**
 * One string per table that changes when any row of that workspace changes: its rows in every
 * scoped table, its own `workspaces` row, and every row of the tables it cannot be told apart in
 * (account tables and any unscoped one), in one statement.
 */
export async function workspaceFingerprint(
  db: Db,
  workspaceId: number,
  tables: { table: string; scope: Scope }[],
  withUnscoped = true,
): Promise<Record<string, string>> {
  const names = ['workspace'];
  const parts = [rowsDigest('workspaces', sql`t.id = ${workspaceId}`)];
  for (const { table, scope } of tables) {
    if (scope) {
      names.push(table);
      parts.push(rowsDigest(table, belongsTo(scope, workspaceId)));
    } else if (withUnscoped) {
      names.push(table);
      parts.push(rowsDigest(table, sql`true`));
    }
  }
  const { rows } = await sql<{ fingerprint: string }>`select concat_ws(',', ${sql.join(parts)}) as fingerprint`.execute(
    db,
  );
  const values = rows[0]!.fingerprint.split(',');
  return Object.fromEntries(names.map((table, i) => [table, values[i]!]));
}

export const changedTables = (before: Record<string, string>, after: Record<string, string>) =>
  Object.keys(before).filter((table) => before[table] !== after[table]);
