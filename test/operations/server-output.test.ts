import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectOutput, request, startServer } from '../support/server-process.js';

const REQUESTS = 200;

/**
 * The real server's output arrives in chunks that need not end at a line's end: pino writes
 * asynchronously, many lines at a time, and a reader busy elsewhere gets part of a write. Reading
 * the JSON log lines must not stumble on the unfinished last line, neither in the reader's own
 * 'data' listener (a throw there is an uncaught exception: vitest's "Unhandled Errors" with every
 * test passed, docs/testing.md) nor in a test that reads the lines meanwhile.
 */
describe("the real server's log output", () => {
  it('is parsed a line at a time, once the line is complete', async () => {
    const script = `process.stdout.write('{"msg":"one"}\\n{"msg":');
      setTimeout(() => process.stdout.write('"two"}\\nplain text\\n{not json\\n'), 300);`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const collected = collectOutput(child);
    while (!collected.output().includes('{"msg":"one"}')) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(collected.logLines()).toEqual([{ msg: 'one' }]);
    expect(await collected.exited).toBe(0);
    expect(collected.logLines()).toEqual([{ msg: 'one' }, { msg: 'two' }, { unparsed: '{not json' }]);
  });

  it('is read line by line whole, however it is chunked', { timeout: 120_000 }, async () => {
    const escaped: unknown[] = [];
    const onException = (error: unknown) => escaped.push(error);
    process.on('uncaughtException', onException);
    const dataDir = mkdtempSync(join(tmpdir(), 'herald-output-'));
    const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'debug' } as NodeJS.ProcessEnv;
    delete env.DATABASE_URL;
    delete env.SECRET_KEY;
    const server = await startServer(env);
    try {
      // Long URLs make long lines (two per request); the test process blocks while they are written,
      // so the server's writes pile up and come back in pieces.
      const path = `/healthz?${'padding='.repeat(1000)}`;
      for (let round = 0; round < 4; round++) {
        const answers = Array.from({ length: REQUESTS / 4 }, () => request(server.port, { method: 'GET', path }));
        const until = Date.now() + 300;
        while (Date.now() < until) server.logLines();
        for (const answer of await Promise.all(answers)) expect(answer.status).toBe(200);
      }
      const completed = () => server.logLines().filter((line) => line.msg === 'request completed').length;
      for (let waited = 0; completed() < REQUESTS && waited < 10_000; waited += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(completed()).toBe(REQUESTS);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      process.off('uncaughtException', onException);
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(escaped.map(String)).toEqual([]);
  });
});
