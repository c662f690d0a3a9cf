import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../migrations/index.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { TEST_SECRET_KEY } from '../support/app.js';

/** `herald --version`, `herald migrate --status` and `herald doctor`, on a database of their own. */
// Each command is a process opening the database: slow on embedded storage under load, hence the long timeouts.
describe('herald --version, migrate --status, doctor', { timeout: 600_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-cli-ops-'));
  let database: PrivateDatabase | undefined;
  afterAll(async () => {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const herald = (...args: string[]) => {
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'silent',
    } as NodeJS.ProcessEnv;
    if (database?.url) env.DATABASE_URL = database.url;
    else delete env.DATABASE_URL;
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      env,
      encoding: 'utf8',
      timeout: 180_000,
    });
    return {
      status: result.status,
      stdout: result.stdout,
      stderr: result.stderr,
      json: () => JSON.parse(result.stdout),
    };
  };

  it('prints the version of package.json', () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    expect(herald('--version').stdout).toBe(`herald ${version}\n`);
  });

  it('lists pending migrations without applying them, and the doctor says what is wrong until they are', async () => {
    // PostgreSQL: an empty database of its own (no migrations yet); embedded: an empty DATA_DIR.
    if (process.env.DATABASE_URL) {
      database = await createPrivateDatabase();
      const url = new URL(database.url!);
      const name = url.pathname.slice(1);
      // Recreated empty: createPrivateDatabase migrates.
      const drop = spawnSync(
        'psql',
        [
          '-h',
          url.hostname,
          '-p',
          url.port,
          '-U',
          url.username,
          '-d',
          'postgres',
          '-c',
          `drop database ${name} with (force)`,
          '-c',
          `create database ${name}`,
        ],
        { encoding: 'utf8' },
      );
      expect(drop.status, drop.stderr).toBe(0);
    }
    const names = Object.keys(migrations).sort();
    const before = herald('migrate', '--status', '--json');
    expect(before.status, before.stderr).toBe(0);
    expect(before.json()).toEqual({
      pending: names.length,
      migrations: names.map((name) => ({ name, applied_at: null })),
    });
    // Still nothing applied: --status only reads (the doctor below finds them all pending).
    const sick = herald('doctor', '--json');
    expect(sick.status).toBe(1);
    expect(sick.json().ok).toBe(false);
    expect(sick.json().checks[1]).toEqual({
      check: 'migrations',
      ok: false,
      detail: `pending: ${names.join(', ')} (herald migrate)`,
    });

    expect(herald('migrate').status).toBe(0);
    const after = herald('migrate', '--status', '--json').json();
    expect(after.pending).toBe(0);
    expect(after.migrations.every((m: { applied_at: string | null }) => m.applied_at !== null)).toBe(true);
    const healthy = herald('doctor', '--json');
    expect(healthy.status, healthy.stdout + healthy.stderr).toBe(0);
    expect(healthy.json().checks.map((c: { check: string; ok: boolean }) => [c.check, c.ok])).toEqual([
      ['database', true],
      ['migrations', true],
      ['secret key', true],
      ['segment role', true],
    ]);
  });
});
