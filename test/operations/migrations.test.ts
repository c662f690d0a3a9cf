import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { migrations } from '../../migrations/index.js';

const adminUrl = process.env.DATABASE_URL;
const migrationCount = Object.keys(migrations).length;

async function withFreshPostgres(run: (url: string) => Promise<void>) {
  const admin = createDatabase({ url: adminUrl! });
  const name = `herald_migration_test_${Date.now()}_${process.pid}`;
  await sql.raw(`create database ${name}`).execute(admin.db);
  const url = new URL(adminUrl!);
  url.pathname = `/${name}`;
  try {
    await run(url.toString());
  } finally {
    await sql.raw(`drop database if exists ${name} with (force)`).execute(admin.db);
    await admin.db.destroy();
  }
}

describe('migrations', { timeout: 120_000 }, () => {
  it('apply to an empty embedded database and are a no-op on a current one', async () => {
    const { db } = createDatabase({ dataDir: 'memory://' });
    try {
      const first = await migrateToLatest(db);
      expect(first.results?.map((r) => r.status)).toEqual(Array(migrationCount).fill('Success'));
      const second = await migrateToLatest(db);
      expect(second.results).toEqual([]);
      const tables = await db.introspection.getTables();
      expect(tables.map((t) => t.name)).toEqual(
        expect.arrayContaining(['workspaces', 'users', 'events', 'api_keys', 'workspace_keys']),
      );
    } finally {
      await db.destroy();
    }
  });

  it('are checked in one statement on a current database, and one applied that this build lacks is still refused', async () => {
    let statements = 0;
    const { db } = createDatabase({ dataDir: 'memory://', onQuery: () => statements++ });
    try {
      await migrateToLatest(db);
      statements = 0;
      expect((await migrateToLatest(db)).results).toEqual([]);
      expect(statements).toBe(1);
      // The Migrator's own check, not the one statement, meets a database from a newer build.
      await sql`insert into kysely_migration (name, timestamp) values ('2099-01-01T00-from-a-newer-build', '2099-01-01')`.execute(
        db,
      );
      await expect(migrateToLatest(db)).rejects.toThrow(/2099-01-01T00-from-a-newer-build/);
    } finally {
      await db.destroy();
    }
  });

  it.runIf(adminUrl)('apply once when two instances start at once against one PostgreSQL', async () => {
    await withFreshPostgres(async (url) => {
      const one = createDatabase({ url });
      const two = createDatabase({ url });
      try {
        const results = await Promise.all([migrateToLatest(one.db), migrateToLatest(two.db)]);
        const applied = results.flatMap((r) => r.results ?? []).filter((r) => r.status === 'Success');
        expect(applied).toHaveLength(migrationCount);
        const rows = await one.db
          .selectFrom('kysely_migration' as never)
          .select(sql<number>`count(*)`.as('n'))
          .executeTakeFirstOrThrow();
        expect(Number((rows as { n: number }).n)).toBe(migrationCount);
        expect((await migrateToLatest(one.db)).results).toEqual([]);
      } finally {
        await one.db.destroy();
        await two.db.destroy();
      }
    });
  });
});
