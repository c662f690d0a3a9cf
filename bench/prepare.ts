import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { SecretBox } from '../src/auth/secret-box.js';
import { createDatabase, type Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { bootstrapWorkspace } from '../src/provisioning.js';
import { findWorkspaceBySlug } from '../src/repositories/workspaces.js';
import { MAIN_WORKSPACE, SCALE_WORKSPACE } from './data.js';
import { scaleExtra, wants, type BenchOptions } from './options.js';
import type { RunInfo } from './report.js';
import { analyze, seedEvents, seedUsers } from './seed-sql.js';

/** Runs a step, logging it, and says how long it took. */
export type Timed = <T>(what: string, work: () => Promise<T>) => Promise<{ value: T; seconds: number }>;

/** A fresh, empty benchmark database on every run. */
async function recreateDatabase(url: string) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${name}" with (force)`);
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}

const tableExists = async (db: Db, table: string) =>
  (await sql<{ found: string | null }>`select to_regclass(${table})::text as found`.execute(db)).rows[0]?.found != null;

/** Database, schema, workspaces and credentials, users and events: everything seeded by SQL. */
export async function prepareDatabase(options: BenchOptions, dataDir: string, secretKey: string, seeding: RunInfo['seeding'], timed: Timed) {
  if (!options.embedded) await recreateDatabase(options.databaseUrl);
  const handle = createDatabase(options.embedded ? { dataDir: join(dataDir, 'pglite') } : { url: options.databaseUrl, poolSize: 4 });
  const db = handle.db;
  try {
    await migrateToLatest(db);
    const box = new SecretBox(secretKey);
    const main = await bootstrapWorkspace(db, box, { slug: MAIN_WORKSPACE, actor: null });
    const scale = await bootstrapWorkspace(db, box, { slug: SCALE_WORKSPACE, actor: null });
    const mainId = (await findWorkspaceBySlug(db, MAIN_WORKSPACE))!.id;
    const scaleId = (await findWorkspaceBySlug(db, SCALE_WORKSPACE))!.id;
    const { sizes } = options;
    const step = async (what: string, target: number, work: () => Promise<unknown>) => {
      const { seconds } = await timed(`seeding ${what}`, work);
      seeding.push({ what, target, reached: target, available: true, seconds });
    };
    await step('users (SQL, 1–3 channels each)', sizes.users, () => seedUsers(db, mainId, 'user-', sizes.users));
    await step('events (SQL)', sizes.events, () => seedEvents(db, mainId, 'user-', sizes.users, sizes.events));
    // Scenario 7's million subscribers need as many users, in their own workspace; only worth
    // seeding when this build has subscriptions at all.
    if ((await tableExists(db, 'subscriptions')) && (wants(options, '7'))) {
      const members = sizes.scaleSubscribers + scaleExtra(sizes);
      await step(`users of the scale workspace (SQL, scenario 7)`, members, () => seedUsers(db, scaleId, 'member-', members));
    }
    await timed('analyze', () => analyze(db));
    const postgres = (await sql<{ version: string }>`select version() as version`.execute(db)).rows[0]?.version ?? '';
    return { main, scale, mainId, postgres: postgres.split(' on ')[0] ?? postgres };
  } finally {
    await db.destroy();
  }
}
