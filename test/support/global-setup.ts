import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import { HeraldPGliteDialect } from '../../src/db/pglite-dialect.js';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Database } from '../../src/db/types.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Embedded runs: a file holding a dump of a freshly migrated PGlite (see buildTestApp). */
    embeddedSnapshot?: string;
  }
}

/**
 * With PostgreSQL, migrate once before the files run. Embedded, migrate one in-memory PGlite once
 * and dump it: every embedded test database starts from that dump, which skips PGlite's initdb and
 * the migrations (about four fifths of opening one) while each still gets a database of its own.
 */
export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (url) {
    const { db } = createDatabase({ url });
    try {
      await migrateToLatest(db);
    } finally {
      await db.destroy();
    }
    return;
  }
  const pglite = new PGlite('memory://');
  const db = new Kysely<Database>({ dialect: new HeraldPGliteDialect(pglite) });
  let dump: Blob;
  try {
    await migrateToLatest(db);
    dump = await pglite.dumpDataDir('none');
  } finally {
    await db.destroy();
  }
  const dir = mkdtempSync(join(tmpdir(), 'herald-test-'));
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide('embeddedSnapshot', file);
  return () => rmSync(dir, { recursive: true, force: true });
}
