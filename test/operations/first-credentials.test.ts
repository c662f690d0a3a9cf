import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_SECRET_KEY, useTestApp } from '../support/app.js';
import { uniqueSlug } from '../support/fixtures.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The one shell block under a README heading. */
function blockUnder(heading: string): string[] {
  const section = readme.split(`\n### ${heading}\n`)[1]?.split(/\n#{2,3} /)[0] ?? '';
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  expect(blocks, heading).toHaveLength(1);
  return blocks[0]!
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}

const dataDir = mkdtempSync(join(tmpdir(), 'herald-first-'));

/** Runs the CLI as a README line names it (`npx herald …`, `node bin/herald.js …`), from the source. */
function runLine(line: string, workspace: string) {
  const args = line
    .replace(/^(npx herald|docker compose exec herald node bin\/herald\.js) /, '')
    .split(/\s+/)
    .map((word) => (word === 'staging' ? workspace : word));
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(result.status, result.stderr).toBe(0);
  return Object.fromEntries(
    result.stdout
      .trim()
      .split('\n')
      .map((row) => row.split(': ') as [string, string]),
  );
}

// Issue 32, point 15: the quick start only worked on embedded storage. The README's blocks for
// PostgreSQL and Docker Compose are run here as written (their `herald` line against this test's
// database), and the credentials they print are used.
describe('first credentials, as the README says', { timeout: 300_000 }, () => {
  const t = useTestApp();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const check = async (printed: Record<string, string>, workspace: string) => {
    expect(printed.workspace).toBe(workspace);
    expect(printed.service_token).toMatch(/^hst_/);
    expect(printed.api_key).toMatch(/^hak_/);
    if (!process.env.DATABASE_URL) return; // embedded: the CLI wrote into its own DATA_DIR, not the app's
    const keys = await t().app.inject({
      method: 'GET',
      url: `/management/v1/${workspace}/ws_key/`,
      headers: { authorization: `ServiceToken ${printed.service_token}` },
    });
    expect(keys.statusCode).toBe(200);
    expect(keys.json().results[0].key).toBe(printed.workspace_key);
    const user = await t().app.inject({
      method: 'GET',
      url: '/v1/user/nobody/',
      headers: { authorization: `Bearer ${printed.api_key}` },
    });
    expect(user.statusCode).toBe(404);
  };

  it('on PostgreSQL: one block, whose bootstrap line prints working credentials', async () => {
    const lines = blockUnder('First credentials on PostgreSQL');
    expect(lines[0]).toMatch(/^export DATABASE_URL=postgres:\/\//);
    expect(lines[1]).toMatch(/^export SECRET_KEY=/);
    expect(lines).toContain('npm start');
    const bootstrap = lines.filter((line) => line.startsWith('npx herald '));
    expect(bootstrap).toEqual(['npx herald bootstrap --workspace staging']);
    // Before the server starts: the CLI migrates the database itself.
    expect(lines.indexOf(bootstrap[0]!)).toBeLessThan(lines.indexOf('npm start'));
    const workspace = uniqueSlug('readme');
    await check(runLine(bootstrap[0]!, workspace), workspace);
  });

  it('in Docker Compose: one block, its bootstrap line runs what the image holds', async () => {
    const lines = blockUnder('First credentials in Docker Compose');
    // The secret key is made once into the file compose reads it from (docs/operations.md), never anew per `up`.
    expect(lines[0]).toMatch(/openssl rand -base64 48 > secrets\/secret_key/);
    const bootstrap = lines.filter((line) => line.startsWith('docker compose exec herald '));
    expect(bootstrap).toEqual(['docker compose exec herald node bin/herald.js bootstrap --workspace staging']);
    // The image has what that line runs, and compose names the service and the variable.
    const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
    expect(dockerfile).toContain('COPY bin ./bin');
    expect(dockerfile).toContain('COPY --from=build /app/dist ./dist');
    const compose = readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8');
    expect(compose).toMatch(/\n {2}herald:\n/);
    expect(compose).toContain('SECRET_KEY_FILE: /run/secrets/herald_secret_key');
    expect(compose).toMatch(/file: \.\/secrets\/secret_key/);
    const workspace = uniqueSlug('readme');
    await check(runLine(bootstrap[0]!, workspace), workspace);
  });
});
