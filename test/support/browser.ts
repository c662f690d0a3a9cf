import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it when missing), driven by
 * playwright-core: no browser is downloaded. `CHROMIUM_PATH` overrides the path.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The flags this machine needs: no sandbox (tests run as root), and none of Chromium's own
 * background connections, which the closed network refuses (docs/testing.md, "Browser tests").
 * Playwright gives every launch an empty profile of its own and removes it on close.
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** A headless Chromium; each `browser.newContext()` is a fresh private window (its own storage). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

/**
 * A browser bundle of an official client, built the way a customer's app would bundle it: esbuild
 * over `source` (an ES module importing the packages from node_modules), minified for production.
 */
export async function bundleForBrowser(source: string): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    stdin: { contents: source, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"', global: 'globalThis' },
  });
  return result.outputFiles[0]!.text;
}

/** A loopback page server: `/` answers `html`, `/app.js` answers `script`. Resolves with its URL and a close(). */
export async function servePage(html: string, script: string) {
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    const isScript = request.url === '/app.js';
    response.setHeader('content-type', isScript ? 'text/javascript' : 'text/html; charset=utf-8');
    response.end(isScript ? script : html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
