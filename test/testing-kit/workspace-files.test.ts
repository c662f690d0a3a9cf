import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

// Each file starts Herald (a first start migrates an embedded database) and real peers: on a loaded
// two-core machine that takes minutes, not the suite's default 60 s.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 300_000 });

/**
 * `herald import` / `herald export` (docs/testing-your-notifications.md, "Configuration in files")
 * against a running Herald's management API, on this run's database.
 */

const NOTIFICATIONS = fileURLToPath(new URL('./notifications', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The CLI in a process of its own (async: this process serves its requests meanwhile). */
function herald(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('herald import and herald export', () => {
  const t = useTestApp();
  let managementUrl = '';
  let dir: string;
  beforeAll(async () => {
    await t().app.listen({ port: 0, host: '127.0.0.1' });
    managementUrl = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}/management/`;
    dir = mkdtempSync(join(tmpdir(), 'herald-files-'));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const run = (command: 'import' | 'export', ws: WorkspaceFixture, from: string, env: Record<string, string> = {}) =>
    herald([command, '--dir', from, '--url', managementUrl, '--workspace', ws.slug, '--json'], {
      HERALD_SERVICE_TOKEN: ws.serviceToken,
      ...env,
    });
  const versionOf = async (ws: WorkspaceFixture, slug: string) =>
    (
      await t().app.inject({
        method: 'GET',
        url: `/management/v1/${ws.slug}/workflow/${slug}/?mode=live`,
        headers: ws.management,
      })
    ).json().version_no as number;

  it('imports a directory, and importing it again changes nothing', async () => {
    const ws = await createWorkspaceFixture(t());
    const first = await run('import', ws, NOTIFICATIONS);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout) as { created: string[]; updated: string[]; unchanged: string[] };
    expect(created.unchanged).toEqual([]);
    expect([...created.created, ...created.updated].sort()).toEqual(
      [
        'categories',
        'template comments',
        'template daily-summary',
        'template newsletter',
        'template trial-reminder',
        'vendor email',
        'workflow comments',
        'workflow daily-summary',
        'workflow newsletter',
        'workflow trial-reminder',
      ].sort(),
    );
    const version = await versionOf(ws, 'trial-reminder');

    const again = await run('import', ws, NOTIFICATIONS);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: [], updated: [] });
    expect(await versionOf(ws, 'trial-reminder')).toBe(version);
  });

  it('exports the live configuration without vendor secrets, and the export imports back as unchanged', async () => {
    const ws = await createWorkspaceFixture(t());
    const source = join(dir, 'with-secret');
    cpSync(NOTIFICATIONS, source, { recursive: true });
    const vendor = JSON.parse(readFileSync(join(source, 'vendors', 'email.json'), 'utf8'));
    vendor.config = { ...vendor.config, username: 'mailer', password: '$env:SMTP_PASSWORD' };
    writeFileSync(join(source, 'vendors', 'email.json'), JSON.stringify(vendor));
    const missing = await run('import', ws, source);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toContain('the environment has no SMTP_PASSWORD');
    expect((await run('import', ws, source, { SMTP_PASSWORD: 'hunter2-secret' })).code).toBe(0);

    const exported = join(dir, 'exported');
    const out = await run('export', ws, exported);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout).files).toContain('workflows/trial-reminder.json');
    for (const file of ['categories.json', 'templates/comments.json', 'vendors/email.json'])
      expect(existsSync(join(exported, file))).toBe(true);
    const written = readFileSync(join(exported, 'vendors', 'email.json'), 'utf8');
    expect(written).not.toContain('hunter2-secret');
    expect(JSON.parse(written).config).toMatchObject({ username: 'mailer', password: '********' });
    expect(JSON.parse(readFileSync(join(exported, 'workflows', 'trial-reminder.json'), 'utf8'))).toMatchObject(
      JSON.parse(readFileSync(join(NOTIFICATIONS, 'workflows', 'trial-reminder.json'), 'utf8')),
    );

    const back = await run('import', ws, exported);
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ created: [], updated: [] });
  });

  it('refuses to run without the service token, naming what it needs', async () => {
    const ws = await createWorkspaceFixture(t());
    const result = await herald(['import', '--dir', NOTIFICATIONS, '--url', managementUrl, '--workspace', ws.slug], {
      HERALD_SERVICE_TOKEN: '',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('HERALD_SERVICE_TOKEN');
  });
});
