import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { SecretBox } from '../src/crypto/secret-box.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { bootstrapWorkspace } from '../src/services/workspaces.js';
import { findWorkspaceBySlug } from '../src/repositories/workspaces.js';
import { MAIN_WORKSPACE, SCALE_WORKSPACE } from './data.js';
import { scaleExtra, type BenchOptions } from './options.js';
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

/** Database, schema, both workspaces and their credentials, the main workspace's users and events (by SQL). */
export async function prepareDatabase(
  options: BenchOptions,
  dataDir: string,
  secretKey: string,
  seeding: RunInfo['seeding'],
  timed: Timed,
) {
  if (!options.embedded) await recreateDatabase(options.databaseUrl);
  const handle = createDatabase(
    options.embedded ? { dataDir: join(dataDir, 'pglite') } : { url: options.databaseUrl, poolSize: 4 },
  );
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
    await timed('analyze', () => analyze(db));
    const postgres = (await sql<{ version: string }>`select version() as version`.execute(db)).rows[0]?.version ?? '';
    return { main, scale, mainId, scaleId, postgres: postgres.split(' on ')[0] ?? postgres };
  } finally {
    await db.destroy();
  }
}

/**
 * Scenario 7's workspace: its large object's subscribers and the users to add, by SQL. Seeded
 * after the other scenarios ran (Herald stopped, for the embedded engine's sake), so that they
 * measure a users table of the main data set's size.
 */
export async function seedScaleUsers(
  options: BenchOptions,
  dataDir: string,
  scaleId: number,
  seeding: RunInfo['seeding'],
  timed: Timed,
) {
  const { db } = createDatabase(
    options.embedded ? { dataDir: join(dataDir, 'pglite') } : { url: options.databaseUrl, poolSize: 4 },
  );
  try {
    const members = options.sizes.scaleSubscribers + scaleExtra(options.sizes);
    const { seconds } = await timed('seeding users of the scale workspace (SQL, scenario 7)', () =>
      seedUsers(db, scaleId, 'member-', members),
    );
    seeding.push({
      what: 'users of the scale workspace (SQL, scenario 7)',
      target: members,
      reached: members,
      available: true,
      seconds,
    });
    await analyze(db);
  } finally {
    await db.destroy();
  }
}
