import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.js';

// The browser the console and client tests drive: a real headless Chromium on a loopback page.
describe('test browser', () => {
  let browser: Browser;
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(
      '<!doctype html><title>t</title><button id="b">go</button><script>b.onclick=()=>{b.textContent="clicked"}</script>',
    );
  });

  beforeAll(async () => {
    browser = await launchBrowser();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('loads a loopback page, runs its script and keeps storage per context', async () => {
    const { port } = server.address() as AddressInfo;
    const first = await browser.newContext();
    const page = await first.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.click('#b');
    expect(await page.textContent('#b')).toBe('clicked');
    await page.evaluate(() => sessionStorage.setItem('k', 'v'));
    const second = await browser.newContext();
    const other = await second.newPage();
    await other.goto(`http://127.0.0.1:${port}/`);
    expect(await other.evaluate(() => sessionStorage.getItem('k'))).toBeNull();
    await first.close();
    await second.close();
  });
});
