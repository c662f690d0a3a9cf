import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { unsupportedNode } from '../../src/node-version.js';

/** Runs an entry of Herald under `node` (this one unless told), with the Node version it sees faked when asked. */
function start(entry: string, options: { node?: string; fakeVersion?: string } = {}) {
  const fake = options.fakeVersion
    ? [
        '--import',
        `data:text/javascript,Object.defineProperty(process.versions,'node',{value:'${options.fakeVersion}'})`,
      ]
    : [];
  const result = spawnSync(options.node ?? process.execPath, ['--import', 'tsx', ...fake, entry, '--help'], {
    encoding: 'utf8',
    timeout: 120_000,
    // Nothing may open: no database, no port (the check comes before the configuration is read).
    env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', PORT: '1', LOG_LEVEL: 'silent' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const refusal =
  /^herald: Node\.js 22\.12 or newer is required \(this is [\d.]+\); install Node\.js 22 LTS .* and start again\n$/;

// Issue 32, point 13: Herald ran on Node 20 with no warning.
describe('the Node.js version', { timeout: 300_000 }, () => {
  it('is refused below 22.12 with one line that says what to do', () => {
    for (const old of ['20.20.2', 'v20.0.0', '21.7.3', '22.11.0', '18.20.0'])
      expect(unsupportedNode(old), old).toMatch(/^herald: Node\.js 22\.12 or newer is required .*start again$/);
    for (const fine of ['22.12.0', 'v22.23.3', '23.0.0', '24.1.0', '30.0.0'])
      expect(unsupportedNode(fine), fine).toBe(undefined);
  });

  it('stops the server and the CLI before anything else runs', () => {
    for (const entry of ['src/main.ts', 'src/cli.ts']) {
      const result = start(entry, { fakeVersion: '22.11.0' });
      expect(result.status, `${entry}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toMatch(refusal);
      expect(result.stderr).toContain('(this is 22.11.0)');
      expect(result.stdout).toBe('');
    }
    // The same entry on this Node starts (the CLI prints its usage).
    const current = start('src/cli.ts');
    expect(current.status, current.stderr).toBe(0);
    expect(current.stdout).toContain('herald migrate');
  });

  const oldNode = '/usr/bin/node';
  const oldVersion = existsSync(oldNode)
    ? spawnSync(oldNode, ['--version'], { encoding: 'utf8' }).stdout.trim()
    : undefined;
  it.runIf(oldVersion !== undefined && unsupportedNode(oldVersion) !== undefined)(
    `is refused by a real older Node.js (${oldNode} ${oldVersion ?? 'absent'})`,
    () => {
      const result = start('src/main.ts', { node: oldNode });
      expect(result.status, result.stderr).toBe(1);
      expect(result.stderr).toMatch(refusal);
      expect(result.stdout).toBe('');
    },
  );
});
