import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { engineWorkspace } from '../support/engine-drivers.js';
import { configClient } from '../support/config.js';
import { assertTokenNowhereButSession, consoleWindow, hasRoute, signIn, useConsoleHerald } from '../support/console.js';

/** Markup that would run if any page put user data into the DOM as HTML. */
const XSS = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script>`;
const PREVIEW_XSS = `<p>Hi</p><script>parent.__pwned='preview'</script><img src=x onerror="parent.__pwned='preview-img'">`;

/** The console as an attack surface (docs/console.md, "Security"). */
describe('the console against hostile data and pages', { timeout: 120_000 }, () => {
  const herald = useConsoleHerald();
  const t = () => herald().t;
  let browser: Browser;
  let baseUrl: string;
  let ws: WorkspaceFixture;

  beforeAll(async () => {
    ({ browser, baseUrl } = herald());
    ws = await engineWorkspace(t);
  }, 120_000);

  it('the page and its assets carry a strict CSP and refuse framing; GET / redirects to the console', async () => {
    const root = await fetch(`${baseUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/console/');
    const page = await fetch(`${baseUrl}/console/workflows/anything`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = await fetch(`${baseUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
    for (const response of [page, asset]) {
      const csp = response.headers.get('content-security-policy') ?? '';
      const directives = Object.fromEntries(
        csp.split(';').map((d) => {
          const [name, ...values] = d.trim().split(/\s+/);
          return [name, values];
        }),
      );
      expect(directives['default-src']).toEqual(["'none'"]);
      expect(directives['script-src']).toEqual(["'self'"]);
      expect(directives['connect-src']).toEqual(["'self'"]);
      expect(directives['frame-ancestors']).toEqual(["'none'"]);
      expect(directives['object-src']).toEqual(["'none'"]);
      expect(csp).not.toContain('unsafe-eval');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('another site cannot frame the console (clickjacking)', async () => {
    const framing: Server = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>evil</title><iframe id="f" src="${baseUrl}/console/"></iframe>`);
    });
    await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
    try {
      const { context, page } = await consoleWindow(browser);
      const refusals: string[] = [];
      page.on('console', (message) => refusals.push(message.text()));
      await page.goto(`http://127.0.0.1:${(framing.address() as AddressInfo).port}/`);
      await expect.poll(() => refusals.some((text) => text.includes('frame-ancestors'))).toBe(true);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      // Chromium shows its own error page in the frame: the console's app never loads there.
      expect(
        await frame
          ?.locator('#app')
          .count()
          .catch(() => 0),
      ).toBe(0);
      await context.close();
    } finally {
      await new Promise((resolve) => framing.close(resolve));
    }
  });

  it('user data and template previews with markup are shown as text or sandboxed, and run nothing', async () => {
    const config = configClient(t, ws);
    expect(
      (
        await config.postWorkflow('xss-flow', {
          name: XSS,
          category: 'order-updates',
          trigger_type: 'api',
          tree: { nodes: [] },
        })
      ).statusCode,
    ).toBeLessThan(300);
    const management = (method: 'POST' | 'PATCH', path: string, payload: object) =>
      t().app.inject({ method, url: `/management${path}`, headers: ws.management, payload });
    expect(
      (await management('POST', `/v2/${ws.slug}/template/xss/`, { name: XSS, enabled_channels: ['email'] })).statusCode,
    ).toBeLessThan(300);
    const variant = await management('POST', `/v2/${ws.slug}/template/xss/channel/email/variant/default/`, {
      locale: 'en',
      content: { subject: XSS, html: PREVIEW_XSS, text: XSS },
    });
    expect(variant.statusCode, variant.body).toBeLessThan(300);
    const vendor = await management('POST', `/v1/${ws.slug}/vendor/`, {
      channel: 'email',
      provider: 'smtp',
      nickname: XSS,
      config: { host: '127.0.0.1', from_email: 'a@example.com' },
    });
    expect(vendor.statusCode, vendor.body).toBeLessThan(300);

    const { context, page, dialogs, errors } = await consoleWindow(browser);
    await signIn(page, baseUrl, ws);
    await page.getByRole('link', { name: XSS }).waitFor();
    await page.getByRole('link', { name: XSS }).click();
    await page.getByRole('heading', { level: 1, name: XSS }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Vendors' }).click();
    await page.getByText(XSS).first().waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('link', { name: XSS }).click();
    await page.getByRole('heading', { level: 1, name: XSS }).waitFor();
    // The variant's content loads after the page's heading: wait for it rather than read the empty editor.
    await expect.poll(() => page.getByLabel('HTML body').inputValue(), { timeout: 30_000 }).toBe(PREVIEW_XSS);
    if (hasRoute(t(), 'POST', '/management/v1/:workspace/template/:slug/preview/')) {
      const frame = page.locator('iframe[title="Template preview"]');
      await frame.waitFor();
      expect(await frame.getAttribute('sandbox')).toBe('');
      await expect
        .poll(() => page.frameLocator('iframe[title="Template preview"]').locator('p').textContent())
        .toBe('Hi');
    }
    // The page's own policy also stops a script someone managed to insert. (A string: the test's
    // TypeScript knows no DOM. `eval` is not tried here: Playwright's evaluate runs exempt from the CSP.)
    await page.evaluate(`(() => {
      const script = document.createElement('script');
      script.textContent = "window.__pwned = 'inline'";
      document.body.append(script);
    })()`);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the switcher changes the workspace every page reads; the token stays out of URLs, storage, cookies and other tabs', async () => {
    // Service tokens are the operator's: they see every workspace (docs/credentials.md).
    const other = await createWorkspaceFixture(t());
    const { context, page, requests } = await consoleWindow(browser);
    await signIn(page, baseUrl, ws);
    await page.getByRole('link', { name: XSS }).waitFor();
    await page.getByLabel('Workspace').selectOption(other.slug);
    await page.getByText('No workflows yet.').waitFor();
    expect(await page.getByRole('link', { name: XSS }).count()).toBe(0);
    await page.getByLabel('Workspace').selectOption(ws.slug);
    await page.getByRole('link', { name: XSS }).waitFor();
    for (const name of ['Workflows', 'Templates', 'Vendors', 'Keys', 'Preferences']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
    }
    await assertTokenNowhereButSession(context, page, requests, ws.serviceToken);
    const second = await context.newPage();
    await second.goto(`${baseUrl}/console/workflows`);
    await second.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await context.close();
  });
});
