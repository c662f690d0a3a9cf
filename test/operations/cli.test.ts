import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_SECRET_KEY, useTestApp } from '../support/app.js';
import { uniqueSlug } from '../support/fixtures.js';

const dataDir = mkdtempSync(join(tmpdir(), 'herald-cli-'));
const usesPostgres = Boolean(process.env.DATABASE_URL);

function herald(...args: string[]) {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'silent',
  } as NodeJS.ProcessEnv;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json: () => JSON.parse(result.stdout) };
}

// Each command is a process opening the database: slow on embedded storage, hence the long timeout.
describe('herald CLI', { timeout: 180_000 }, () => {
  const t = useTestApp();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('bootstrap --json prints exactly the documented keys, and the credentials work', async () => {
    const slug = uniqueSlug('cli');
    const result = herald(
      'bootstrap',
      '--workspace',
      slug,
      '--actor-name',
      'CLI',
      '--actor-email',
      'cli@example.com',
      '--json',
    );
    expect(result.stderr).toBe('');
    expect(result.status, result.stderr).toBe(0);
    const body = result.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        'api_key',
        'api_key_id',
        'base_url',
        'management_url',
        'service_token',
        'workspace',
        'workspace_key',
        'workspace_secret',
      ].sort(),
    );
    expect(body).toMatchObject({
      workspace: slug,
      base_url: 'http://127.0.0.1:3000/',
      management_url: 'http://127.0.0.1:3000/management/',
    });
    expect(body.api_key_id).toMatch(/^ws_apik_[0-9A-Z]{26}$/);

    if (usesPostgres) {
      const listed = await t().app.inject({
        method: 'GET',
        url: `/management/v1/${slug}/ws_key/`,
        headers: { authorization: `ServiceToken ${body.service_token}` },
      });
      expect(listed.statusCode).toBe(200);
      expect(listed.json().results[0]).toMatchObject({
        key: body.workspace_key,
        secret: body.workspace_secret,
        created_by: { name: 'CLI', email: 'cli@example.com' },
      });
      const user = await t().app.inject({
        method: 'GET',
        url: '/v1/user/nobody/',
        headers: { authorization: `Bearer ${body.api_key}` },
      });
      expect(user.statusCode).toBe(404);
    }

    // Bootstrapping an existing workspace issues new credentials for it and keeps its key pair.
    const again = herald('bootstrap', '--workspace', slug, '--json').json();
    expect(again.workspace_key).toBe(body.workspace_key);
    expect(again.service_token).not.toBe(body.service_token);
  });

  it('creates and lists workspaces, issues and revokes service tokens, issues API keys', () => {
    const slug = uniqueSlug('cli');
    expect(herald('workspace', 'create', slug, '--json').json()).toMatchObject({ workspace: slug });
    expect(
      herald('workspace', 'list', '--json')
        .json()
        .results.map((w: { slug: string }) => w.slug),
    ).toContain(slug);
    const token = herald('service-token', 'create', '--json').json();
    expect(token.service_token).toMatch(/^hst_/);
    expect(herald('service-token', 'revoke', token.service_token_id, '--json').json()).toEqual({ revoked: true });
    const revokedAgain = herald('service-token', 'revoke', token.service_token_id, '--json');
    expect(revokedAgain.status, revokedAgain.stderr).toBe(2);
    expect(revokedAgain.json()).toEqual({ error: 'no live service token matches' });
    expect(herald('api-key', 'create', '--workspace', slug, '--json').json()).toMatchObject({
      workspace: slug,
      api_key: expect.stringMatching(/^hak_/),
    });
  });

  it('explains bad usage and exits 2', () => {
    const result = herald('api-key', 'create', '--workspace', 'no-such-workspace-here', '--json');
    expect(result.status, result.stderr).toBe(2);
    expect(result.json()).toEqual({ error: "workspace 'no-such-workspace-here' not found" });
    const unknown = herald('frobnicate');
    expect(unknown.status, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('unknown command: frobnicate');
  });
});
