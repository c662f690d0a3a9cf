import { Migrator, type MigrationResultSet } from 'kysely';
import { migrations } from '../../migrations/index.js';
import type { Db } from './database.js';

/**
 * Runs every pending migration. Kysely's Migrator holds a row lock on its lock table for the
 * whole run, so two instances starting at once against one PostgreSQL apply each migration once.
 */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    // Branches merge migrations in any order; each is independent of the ones dated after it.
    allowUnorderedMigrations: true,
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
