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
