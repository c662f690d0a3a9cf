import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

// Each file starts Herald (a first start migrates an embedded database) and real peers: on a loaded
// two-core machine that takes minutes, not the suite's default 60 s.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 300_000 });

/**
 * The customer's node:test file (customer.node-test.mjs), run as a customer runs it: `node --test`
 * in a process of its own, importing `herald/testing` through the package export (dist/, so
 * `npm run build` first).
 */
describe('notifications, tested the way a customer tests them (node:test)', () => {
  it('passes under node --test, and the process ends on its own once Herald is closed', async () => {
    const file = fileURLToPath(new URL('./customer.node-test.mjs', import.meta.url));
    const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    // No --test-force-exit: a timer or socket close() left behind would keep the process alive past the timeout.
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(output).toMatch(/# pass 4\n/);
    expect(output).toMatch(/# fail 0\n/);
    expect(code).toBe(0);
  }, 300_000);
});
