import { Migrator, type MigrationResultSet } from 'kysely';
import { migrationsWith } from '../../migrations/index.js';
import { SecretBox } from '../crypto/secret-box.js';
import type { Db } from './database.js';
import { checkSecretKey } from './secret-key-check.js';

/**
 * Runs every pending migration, with the secret key when the database may hold secrets to seal (openDatabase). Kysely's Migrator holds a row lock on its lock table for the
 * whole run, so two instances starting at once against one PostgreSQL apply each migration once.
 */
export async function migrateToLatest(db: Db, secretKey?: string): Promise<MigrationResultSet> {
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
