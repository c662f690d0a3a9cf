import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { buildTestApp, type TestApp } from './app.js';
import { launchBrowser } from './browser.js';
import { assertNoCredentialsInLogs } from './secrets.js';
import type { WorkspaceFixture } from './fixtures.js';

/** Where console tests keep their screenshots: git-ignored (docs/console/ holds the few that are published). */
export const SCREENSHOTS = join(process.cwd(), 'reports', 'console');

/** Herald listening on 127.0.0.1 (port 0), as a browser reaches it. */
export async function listen(t: TestApp): Promise<string> {
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** A fresh private window that records every URL it requests (the token must never be in one). */
export async function consoleWindow(browser: Browser) {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  const requests: Request[] = [];
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => requests.push(request));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, requests, dialogs, errors };
}

export async function signIn(page: Page, baseUrl: string, ws: WorkspaceFixture) {
  await page.goto(`${baseUrl}/`);
  await expect.poll(() => page.url()).toBe(`${baseUrl}/console/`);
  await page.getByLabel('Service token').fill(ws.serviceToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
  await page.getByLabel('Workspace').selectOption(ws.slug);
}

export async function screenshot(page: Page, name: string) {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Where the token may be found by script: none of local storage, cookies, or any requested URL. */
export async function assertTokenNowhereButSession(
  context: BrowserContext,
  page: Page,
  requests: Request[],
  token: string,
) {
  expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(token);
  expect(await page.evaluate('document.cookie')).toBe('');
  expect(await context.cookies()).toEqual([]);
  expect(page.url()).not.toContain(token);
  for (const request of requests) expect(request.url()).not.toContain(token);
}

/** Whether this Herald has a route (the management twins and §3 arrive from another branch). */
export const hasRoute = (t: TestApp, method: 'GET' | 'POST', url: string) => t.app.hasRoute({ method, url });

export interface ConsoleHerald {
  t: TestApp;
  browser: Browser;
  baseUrl: string;
}

/**
 * One Herald (engine and template renderer, listening on 127.0.0.1) and one Chromium for the file.
 * Both start together; on a loaded machine that takes longer than the default hook timeout.
 */
export function useConsoleHerald(): () => ConsoleHerald {
  let herald: ConsoleHerald | undefined;
  beforeAll(async () => {
    const [t, browser] = await Promise.all([
      buildTestApp(
        {},
        // The provider deadline users get (the vendor's timeout_ms), not the engine tests' 1 s: on a loaded
        // machine an SMTP send can take longer than that, and a retry after a send that did arrive mails twice.
        { engine: { renderer: 'templates', engine: { deliveryTimeoutMs: undefined } } },
      ),
      launchBrowser(),
    ]);
    herald = { t, browser, baseUrl: await listen(t) };
  }, 240_000);
  afterAll(async () => {
    await herald?.browser.close();
    await herald?.t.close();
    if (herald) assertNoCredentialsInLogs(herald.t.logs);
  }, 120_000);
  return () => {
    if (!herald) throw new Error('console Herald not started');
    return herald;
  };
}
