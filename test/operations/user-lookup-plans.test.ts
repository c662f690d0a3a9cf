import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { createDatabase, type Db, type Trx } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { findUsersByDistinctIds, lockUsers } from '../../src/repositories/users.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';

/**
 * A batch's users are looked up by distinct_id in the workspace's unique index, whatever the table's
 * statistics say (src/db/json-lists.ts). Asked as `distinct_id in (select … from jsonb_array_elements_text(…))`,
 * the planner guessed the list at 100 items and, on a table never analyzed (PGlite has no autovacuum),
 * read every user of the workspace to hash-join 50 of them, analyzed or not: a trigger's users cost
 * grew with the workspace (6 ms for 50 of 20,000 on PGlite, against 1.2). Checked on a fresh table of
 * 20,000 users and on the same one analyzed.
 */

const USERS = 20_000;
let database: PrivateDatabase;
let db: Db;
let workspaceId: number;
const captured: CompiledQuery[] = [];

beforeAll(async () => {
  database = await createPrivateDatabase();
  ({ db } = createDatabase({
    url: database.url,
    dataDir: 'memory://',
    onQuery: (event) => void (/from "users"/.test(event.query.sql) && captured.push(event.query)),
  }));
  if (!database.url) await migrateToLatest(db);
  const workspace = await sql<{
    id: number;
  }>`insert into workspaces (slug, name) values ('plans', 'Plans') returning id`.execute(db);
  workspaceId = workspace.rows[0]!.id;
  await sql`insert into users (workspace_id, distinct_id)
    select ${workspaceId}, 'user-' || n from generate_series(1, ${USERS}) as n`.execute(db);
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  await database?.drop();
});

/** The plan of the lookup statement `lookup` sent, as the engine runs it. */
async function planOf(lookup: (trx: Trx) => Promise<unknown>) {
  captured.length = 0;
  await db.transaction().execute((trx) => lookup(trx));
  const query = captured.at(-1)!;
  const explained = await db.executeQuery<{ 'QUERY PLAN': string }>(
    CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
  );
  return explained.rows.map((row) => row['QUERY PLAN']).join('\n');
}

const fifty = Array.from({ length: 50 }, (_, i) => `user-${i * 37 + 1}`);
const byUniqueIndex = /Index Scan (using|on) users_workspace_distinct_id_unique/;

describe('looking up a batch of users by distinct_id', () => {
  it('finds the named users, and only them', async () => {
    const found = await findUsersByDistinctIds(db, workspaceId, [...fifty, 'nobody', fifty[0]!]);
    expect(found.map((user) => user.distinct_id).sort()).toEqual([...fifty].sort());
  });

  it('uses the unique index before any statistics exist, and after', async () => {
    for (const analyzed of [false, true]) {
      if (analyzed) await sql`analyze users`.execute(db);
      for (const lookup of [
        (trx: Trx) => findUsersByDistinctIds(trx, workspaceId, fifty),
        (trx: Trx) => lockUsers(trx, workspaceId, fifty),
      ]) {
        const plan = await planOf(lookup);
        expect(plan, plan).toMatch(byUniqueIndex);
        expect(plan, plan).not.toMatch(/Seq Scan on users|users_workspace_id_idx/);
      }
    }
  });
});
