import type { BrowserContext } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { messages, waitFor } from '../support/engine-drivers.js';
import { inboxWorkspace, makeInboxSecret, openClientPage, subscriberIdOf, useInboxPage } from '../support/inbox.js';

/**
 * The drop-in web inbox (@suprsend/web-inbox 0.3.0, the newest on the npm registry, unchanged: its own webpack
 * bundle of react-inbox 3 and js-inbox, default UI), bundled with esbuild into a page and driven in headless
 * Chromium against a real Herald.
 *
 * 0.3.0 takes no `host`: it always calls the hosted platform (https://inboxs.live, wss://betainbox.suprsend.com,
 * https://hub.suprsend.com). The browser context answers those hosts from Herald (what a DNS entry and a proxy
 * would do), and the collector's host from `/collector/{distinct_id}/{subscriber_id}`, where a `collectorHost`
 * points it in the clients that take one (docs/clients.md).
 */
const ENTRY = `
import { initSuprSendInbox } from '@suprsend/web-inbox';
initSuprSendInbox(document.getElementById('suprsend-inbox'), window.HERALD);
`;

const HOSTED = /^https:\/\/(inboxs\.live|hub\.suprsend\.com)\//;

async function answerHostedFromHerald(context: BrowserContext, herald: string, collector: string) {
  await context.route(HOSTED, async (route) => {
    const request = route.request();
    const url = new URL(request.url());
    const base = url.host === 'hub.suprsend.com' ? collector : herald;
    const { host: _host, ...headers } = await request.allHeaders();
    const answer = await fetch(`${base}${url.pathname}${url.search}`, {
      method: request.method(),
      headers,
      body: request.postDataBuffer() ?? undefined,
    });
    await route.fulfill({
      status: answer.status,
      headers: Object.fromEntries(answer.headers),
      body: Buffer.from(await answer.arrayBuffer()),
    });
  });
  // The socket is a WebSocket from the start (the client asks for no polling): the page's WebSocket is pointed at
  // Herald's socket.io, as a DNS entry would point the hostname. (The script as text: a function would be
  // compiled by the test runner, with helpers the page does not have.)
  const socketHost = JSON.stringify(herald.replace(/^http/, 'ws'));
  await context.addInitScript(`{
    const Native = window.WebSocket;
    window.WebSocket = function WebSocket(url, protocols) {
      return new Native(String(url).replace(/^wss:\\/\\/betainbox\\.suprsend\\.com(:443)?/, ${socketHost}), protocols);
    };
    Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
    window.WebSocket.prototype = Native.prototype;
  }`);
}

describe('the drop-in web inbox (@suprsend/web-inbox) in a browser', () => {
  const inboxPage = useInboxPage(ENTRY);
  const { t } = inboxPage;

  it('shows the badge and the list, receives a notification live, records a click, marks read and all read', async () => {
    const inbox = await inboxWorkspace(t);
    const subscriberId = subscriberIdOf(await makeInboxSecret(t, inbox), 'ann');
    const [first] = await inbox.notify(['ann'], { text: 'Your invoice is ready' });
    const [second] = await inbox.notify(['ann'], { text: 'Your order shipped' });
    await inbox.notify(['ben'], { text: 'Not for Ann' });
    const config = { workspaceKey: inbox.ws.workspaceKey, distinctId: 'ann', subscriberId, hideToast: true };
    const { tab, errors, close } = await openClientPage(inboxPage, config, {
      rootId: 'suprsend-inbox',
      prepare: (context) =>
        answerHostedFromHerald(context, inboxPage.host, `${inboxPage.host}/collector/ann/${subscriberId}`),
    });
    try {
      const panel = tab.locator('#ss-notification-container');
      const card = (text: string) => panel.locator('.infinite-scroll-component > div', { hasText: text });
      const texts = () => panel.locator('.infinite-scroll-component > div').allInnerTexts();
      const message = async (id: string) => (await messages(t, inbox.ws, `?message_id=${id}`)).results[0]!;

      // The badge on the bell (its only text), then the list when the bell opens: newest first, ann's only.
      const badge = tab.locator('#suprsend-inbox > div > div > p');
      await badge.filter({ hasText: /^2$/ }).waitFor({ timeout: 20_000 });
      await tab.locator('#suprsend-inbox svg').first().click();
      await card('Your invoice is ready').waitFor({ timeout: 10_000 });
      expect((await texts()).map((text) => text.split('\n').find((line) => line.startsWith('Your')))).toEqual([
        'Your order shipped',
        'Your invoice is ready',
      ]);
      // Opening the bell saw them: the badge is gone, and Herald has them seen.
      await badge.waitFor({ state: 'detached', timeout: 10_000 });
      await waitFor(async () => (await message(second!)).seen_at != null, 10_000, 'seen by opening the bell');

      // Delivered now: the socket's new_notification, then the client fetches it.
      const [fresh] = await inbox.notify(['ann'], { text: 'A reply to your ticket' });
      await card('A reply to your ticket').waitFor({ timeout: 15_000 });
      expect(await panel.locator('.infinite-scroll-component > div').count()).toBe(3);

      // A click on the notification: $notification_clicked to the collector, recorded clicked and read.
      await card('A reply to your ticket').getByText('A reply to your ticket').click();
      await waitFor(async () => (await message(fresh!)).clicked_at != null, 10_000, 'the click');
      expect(await message(fresh!)).toMatchObject({ status: 'clicked', is_read: true });

      // Its menu marks one read.
      await card('Your order shipped').hover();
      await card('Your order shipped').locator('svg[width="20"]').click();
      await card('Your order shipped').getByText('Mark as read').click();
      await waitFor(async () => (await message(second!)).is_read === true, 10_000, 'the read');
      expect((await message(second!)).clicked_at).toBeNull();

      // And mark all as read reaches the rest.
      await panel.getByText('Mark all as read').click();
      await waitFor(async () => (await message(first!)).is_read === true, 10_000, 'all read');
      expect((await texts()).join('\n')).not.toContain('Not for Ann');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
    // A browser, a socket and five deliveries: minutes on a loaded machine, not the default 30 s.
  }, 120_000);
});
