import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/** With PostgreSQL, migrate once before the files run; embedded databases are migrated per file. */
export default async function setup() {
  const url = process.env.DATABASE_URL;
  if (!url) return;
  const { db } = createDatabase({ url });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
