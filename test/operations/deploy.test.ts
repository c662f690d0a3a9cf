import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigSchema, FILE_VARIABLES, loadConfig } from '../../src/config.js';
import { collectOutput, startServer } from '../support/server-process.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';

/**
 * docker-compose.yml without a Docker engine: the file parsed, checked against the variables src/config.ts reads,
 * and the same start-up (segment role's password, API, worker, secret key file) run with the same variables
 * against the local PostgreSQL.
 */
// Compose reads YAML merge keys (`<<: *herald-environment`).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the compose document, read freely by assertions
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as Record<string, any>;
const HERALD_SERVICES = ['herald', 'worker'];

/** Compose's interpolation: `${NAME}`, `${NAME:-default}`, `${NAME:?error}`, `$$`. */
function interpolate(value: string, env: Record<string, string>) {
  return value.replace(/\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (match, name, kind, rest) => {
    if (match === '$$') return '$';
    const given = env[name];
    if (given !== undefined && given !== '') return given;
    if (kind === '?') throw new Error(`${name}: ${rest}`);
    return kind === '-' ? rest : '';
  });
}

const environmentOf = (service: string, env: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(compose.services[service].environment as Record<string, string | number>).map(([key, value]) => [
      key,
      interpolate(String(value), env),
    ]),
  );

const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)![1]);

describe('docker-compose.yml', () => {
  it('sets only variables Herald reads, and every Herald service gets the same database, key and segment login', () => {
    const known = new Set([...Object.keys(ConfigSchema.properties), ...FILE_VARIABLES.map((name) => `${name}_FILE`)]);
    const env = { POSTGRES_PASSWORD: 'pg-pass', HERALD_SEGMENTS_PASSWORD: 'seg-pass' };
    for (const service of HERALD_SERVICES) {
      const environment = environmentOf(service, env);
      expect(Object.keys(environment).filter((name) => !known.has(name))).toEqual([]);
      expect(environment).toMatchObject({
        DATABASE_URL: 'postgres://herald:pg-pass@postgres:5432/herald',
        SEGMENT_DATABASE_URL: 'postgres://herald_segments:seg-pass@postgres:5432/herald',
        SECRET_KEY_FILE: '/run/secrets/herald_secret_key',
      });
      expect(compose.services[service].secrets).toEqual(['herald_secret_key']);
      // Longer than the drain: requests (REQUEST_TIMEOUT_MS) and then jobs (8 s).
      const drain = (loadConfig({}).REQUEST_TIMEOUT_MS + 8000) / 1000;
      expect(seconds(compose.services[service].stop_grace_period)).toBeGreaterThan(drain);
    }
    expect(environmentOf('herald', env).HERALD_ROLE).toBe('api');
    expect(environmentOf('worker', env).HERALD_ROLE).toBe('worker');
    // The key is a file that outlives every `up`, never a value made fresh on each run.
    expect(compose.secrets.herald_secret_key).toEqual({ file: './secrets/secret_key' });
    expect(JSON.stringify(compose)).not.toContain('SECRET_KEY:');
    // The postgres image wants a password: the segment role gets the one its URL carries, before Herald starts.
    const role = compose.services['segments-role'];
    expect(role.environment.HERALD_SEGMENTS_PASSWORD).toBe(
      '${HERALD_SEGMENTS_PASSWORD:?set HERALD_SEGMENTS_PASSWORD in .env}',
    );
    expect(role.command.join(' ')).toContain('-v pw="$$HERALD_SEGMENTS_PASSWORD" -f /segments-role.sql');
    expect(role.volumes).toContain('./deploy/segments-role.sql:/segments-role.sql:ro');
    expect(compose.services.herald.depends_on['segments-role']).toEqual({
      condition: 'service_completed_successfully',
    });
    expect(() => environmentOf('herald', {})).toThrow('POSTGRES_PASSWORD: set POSTGRES_PASSWORD in .env');
  });

  it('has the image check health on a path both the API and the worker serve, and never ship an unpatched PGlite', () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).toMatch(/HEALTHCHECK[\s\S]*\/readyz/);
    expect(dockerfile).toContain('npx patch-package --error-on-fail');
    expect(JSON.parse(readFileSync('package.json', 'utf8')).scripts.postinstall).toBe('patch-package --error-on-fail');
  });
});

describe.runIf(process.env.DATABASE_URL)(
  'the compose start-up, run here against PostgreSQL',
  { timeout: 240_000 },
  () => {
    const folder = mkdtempSync(join(tmpdir(), 'herald-deploy-'));
    let database: PrivateDatabase | undefined;
    afterAll(async () => {
      await database?.drop();
      rmSync(folder, { recursive: true, force: true });
    });

    it('gives the segment role its password, starts the API and the worker with the key file, and refuses another key', async () => {
      database = await createPrivateDatabase();
      const local = new URL(database.url!);
      const password = 'segments-password-for-the-test';
      // The segments-role service's own command, on the local server.
      const role = spawnSync(
        'psql',
        [
          '-h',
          local.hostname,
          '-p',
          local.port,
          '-U',
          local.username,
          '-d',
          local.pathname.slice(1),
          '-v',
          'ON_ERROR_STOP=1',
          '-v',
          `pw=${password}`,
          '-f',
          'deploy/segments-role.sql',
        ],
        { encoding: 'utf8' },
      );
      expect(role.status, role.stderr).toBe(0);
      const keyFile = join(folder, 'secret_key');
      writeFileSync(keyFile, 'a-persistent-secret-key-0123456789-abcdef\n', { mode: 0o600 });
      const services = (role: string) => {
        const environment = environmentOf(role, { POSTGRES_PASSWORD: 'unused', HERALD_SEGMENTS_PASSWORD: password });
        // Where compose's host names point here: the local server and the test's own database and key file.
        const here = (url: string) => {
          const parsed = new URL(url);
          parsed.host = local.host;
          parsed.pathname = local.pathname;
          if (parsed.username === 'herald') {
            parsed.username = local.username;
            parsed.password = '';
          }
          return parsed.toString();
        };
        return {
          PATH: process.env.PATH!,
          ...environment,
          DATABASE_URL: here(environment.DATABASE_URL!),
          SEGMENT_DATABASE_URL: here(environment.SEGMENT_DATABASE_URL!),
          SECRET_KEY_FILE: keyFile,
          HOST: '127.0.0.1',
          PORT: '0',
        };
      };
      const api = await startServer(services('herald'));
      const worker = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: services('worker'),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const workerOutput = collectOutput(worker);
      const workerPort = await new Promise<number>((resolve, reject) => {
        const timer = setInterval(() => {
          const line = workerOutput
            .logLines()
            .find((l) => String(l.msg).startsWith('Server listening at http://127.0.0.1:'));
          if (line) resolve((clearInterval(timer), Number(/:(\d+)$/.exec(String(line.msg))![1])));
        }, 100);
        void workerOutput.exited.then((code) => reject(new Error(`worker exited ${code}: ${workerOutput.output()}`)));
      });
      for (const port of [api.port, workerPort]) {
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(metrics.status).toBe(200);
        expect(await metrics.text()).toContain('herald_queue_jobs{queue="herald-trigger",state="ready"}');
      }
      // The doctor, with the API's variables: database, migrations, key and the segment role's password login.
      const doctor = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'doctor', '--json'], {
        env: services('herald'),
        encoding: 'utf8',
      });
      expect(doctor.status, doctor.stdout + doctor.stderr).toBe(0);
      expect(JSON.parse(doctor.stdout).checks).toEqual([
        { check: 'database', ok: true, detail: expect.stringMatching(/^PostgreSQL /) },
        { check: 'migrations', ok: true, detail: expect.stringMatching(/ applied$/) },
        { check: 'secret key', ok: true, detail: 'matches the fingerprint the database keeps' },
        { check: 'segment role', ok: true, detail: 'logs in as herald_segments' },
      ]);
      api.child.kill('SIGTERM');
      worker.kill('SIGTERM');
      expect(await api.exited).toBe(0);
      expect(await workerOutput.exited).toBe(0);

      // `SECRET_KEY=$(openssl rand …)` on the next run: refused, in one line.
      writeFileSync(keyFile, 'a-fresh-random-key-every-run-0123456789\n');
      const again = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: services('herald'),
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(again.status).toBe(1);
      expect(again.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^Herald failed to start: SECRET_KEY is not the key this database's secrets are sealed with \(fingerprint [0-9a-f]{8}, stored [0-9a-f]{8}\): start with the original key/,
        ),
      ]);
    });
  },
);
