import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { loadOrCreateSecretKey, SecretBox } from '../crypto/secret-box.js';
import { createDatabase, type DatabaseHandle } from './database.js';
import { migrateToLatest } from './migrate.js';
import { checkSecretKey } from './secret-key-check.js';

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** PGlite is single-process: a second process opening the same folder would corrupt it. */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'herald.pid');
  if (existsSync(file)) {
    const pid = Number(readFileSync(file, 'utf8'));
    if (pid && pid !== process.pid && isRunning(pid)) {
      throw new Error(
        `the embedded database in ${dataDir} is in use by process ${pid}; stop it first or set DATABASE_URL`,
      );
    }
  }
  writeFileSync(file, String(process.pid), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

export interface OpenDatabase extends DatabaseHandle {
  secretBox: SecretBox;
  close(): Promise<void>;
}

/** The database the configuration names, migrated to the latest schema, with the secret box for it. */
export async function openDatabase(config: Config): Promise<OpenDatabase> {
  const embedded = !config.DATABASE_URL;
  if (embedded) mkdirSync(config.DATA_DIR, { recursive: true });
  const unlock = embedded ? lockDataDir(config.DATA_DIR) : () => {};
  const secretKey = config.SECRET_KEY ?? loadOrCreateSecretKey(config.DATA_DIR);
  const options = {
    url: config.DATABASE_URL,
    poolSize: config.DATABASE_POOL_SIZE,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    dataDir: join(config.DATA_DIR, 'pglite'),
    timeoutMs: config.DATABASE_TIMEOUT_MS,
  };
  // Migrations may legitimately run longer than any request's statement: they get their own
  // connections without the statement timeout (embedded storage has none to lift).
  let handle = createDatabase(options);
  try {
    await migrateToLatest(handle.db);
    await checkSecretKey(handle.db, secretKey);
    if (handle.kind === 'postgres') {
      await handle.db.destroy();
      handle = createDatabase({ ...options, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS });
    }
  } catch (error) {
    await handle.db.destroy();
    unlock();
    throw error;
  }
  return {
    ...handle,
    secretBox: new SecretBox(secretKey),
    async close() {
      await handle.db.destroy();
      unlock();
    },
  };
}
