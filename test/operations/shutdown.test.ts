import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../support/app.js';

describe('graceful shutdown', { timeout: 90_000 }, () => {
  it('finishes an in-flight request before closing, and refuses new ones', async () => {
    let release: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      release = resolve;
    });
    const t = await buildTestApp(
      {},
      {
        beforeReady: (app) =>
          app.get('/test-slow', { schema: { hide: true } }, async () => {
            release();
            await new Promise((resolve) => setTimeout(resolve, 400));
            return { done: true };
          }),
      },
    );
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const inFlight = fetch(`${address}/test-slow`).then(async (response) => ({
      status: response.status,
      body: await response.json(),
    }));
    await started;
    const closing = t.app.close();
    const refused = await fetch(`${address}/healthz`).then(
      (r) => r.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(refused);
    expect(await inFlight).toEqual({ status: 200, body: { done: true } });
    await closing;
    await t.db.destroy();
  });

  it('exits 0 on SIGTERM after closing the server and the database', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-shutdown-'));
    const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' } as NodeJS.ProcessEnv;
    delete env.DATABASE_URL;
    delete env.SECRET_KEY;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 80_000);
        child.stdout.on('data', () => {
          if (output.includes('Herald: base API')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      expect(output).toContain('service token (management): hst_');
      const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(output).toContain('shut down cleanly');
      // The credentials banner is not a log line: no JSON line carries the token.
      const token = /hst_[A-Za-z0-9_-]+/.exec(output)![0];
      const jsonLines = output.split('\n').filter((line) => line.startsWith('{'));
      expect(jsonLines.length).toBeGreaterThan(0);
      expect(jsonLines.some((line) => line.includes(token))).toBe(false);
    } finally {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
