import { Migrator, sql, type MigrationResultSet } from 'kysely';
import { migrationsWith } from '../../migrations/index.js';
import { SecretBox } from '../crypto/secret-box.js';
import type { Db } from './database.js';
import { checkSecretKey } from './secret-key-check.js';

/**
 * Runs every pending migration, with the secret key when the database may hold secrets to seal (openDatabase). Kysely's Migrator holds a row lock on its lock table for the
 * whole run, so two instances starting at once against one PostgreSQL apply each migration once.
 */
export async function migrateToLatest(db: Db, secretKey?: string): Promise<MigrationResultSet> {
  if (await upToDate(db)) return { results: [] };
  // A migration that seals secrets checks the key against the database's fingerprint before it seals anything.
  const box = secretKey === undefined ? undefined : new SecretBox(secretKey);
  const sealer = box && {
    encrypt: (plaintext: string) => box.encrypt(plaintext),
    verify: (db: Db) => checkSecretKey(db, secretKey!),
  };
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrationsWith(sealer) },
    // Branches merge migrations in any order; each is independent of the ones dated after it.
    allowUnorderedMigrations: true,
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

/**
 * Whether the database has applied exactly the migrations this build has, read in one statement. The Migrator's own
 * check costs a start a dozen statements, two of them reading the catalogue's every table and column (about a tenth of
 * an embedded start: BENCHMARKS.md, "Start time"). Anything else (no migration table yet, one pending, one applied that
 * this build does not know) goes to the Migrator, which applies or refuses as before. Names are inserted in the
 * migration's own transaction, so a migration another instance is still running is not seen as applied.
 */
async function upToDate(db: Db): Promise<boolean> {
  const known = Object.keys(migrationsWith());
  let rows: { name: string }[];
  try {
    ({ rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db));
  } catch {
    // No migration table yet (a first start), or any other failure: the Migrator meets it and reports it.
    return false;
  }
  const names = new Set(known);
  return rows.length === known.length && rows.every(({ name }) => names.has(name));
}
