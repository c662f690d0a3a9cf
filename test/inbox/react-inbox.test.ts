import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { messages, waitFor } from '../support/engine-drivers.js';
import { inboxWorkspace, openClientPage, useInboxPage } from '../support/inbox.js';

/**
 * The official React inbox (@suprsend/react 0.3.5 over @suprsend/react-core 1.0.5 and
 * @suprsend/web-sdk 4, unchanged), bundled with esbuild into a page as a customer's app would be,
 * driven in headless Chromium against a real Herald: the bell's count, the list, a notification
 * arriving live, mark read and archive from a notification's menu.
 */
const ENTRY = `
import React from 'react';
import { createRoot } from 'react-dom/client';
import { SuprSendProvider, Inbox } from '@suprsend/react';
const c = window.HERALD;
createRoot(document.getElementById('root')).render(
  React.createElement(
    SuprSendProvider,
    { publicApiKey: c.publicKey, distinctId: c.distinctId, userToken: c.token, host: c.host },
    React.createElement(Inbox, { pageSize: 20, host: { apiHost: c.host, socketHost: c.host } }),
  ),
);
`;

describe('the official React <Inbox/> in a browser', () => {
  const inboxPage = useInboxPage(ENTRY);
  const { t } = inboxPage;

  const open = (config: Record<string, string>) => openClientPage(inboxPage, config);

  const bodies = (tab: Page) => tab.locator('.ss-feed-notification-body-text').allInnerTexts();

  async function useMenu(tab: Page, text: string, item: 'Mark as read' | 'Archive') {
    const card = tab.locator('.ss-feed-notification', { hasText: text });
    await card.hover();
    await card.locator('.ss-feed-notification-menu-button').click();
    await card.locator('.ss-feed-notification-menu-popup-item', { hasText: item }).click();
  }

  it('shows the bell count and the list, receives a notification live, marks read and archives', async () => {
    const inbox = await inboxWorkspace(t);
    const [first, second] = [
      ...(await inbox.notify(['ann'], { text: 'Your invoice is ready' })),
      ...(await inbox.notify(['ann'], { text: 'Your order shipped' })),
    ];
    await inbox.notify(['ben'], { text: 'Not for Ann' });
    const page = await open({
      host: inboxPage.host,
      publicKey: inbox.publicKey,
      distinctId: 'ann',
      token: await inbox.mint('ann'),
    });
    try {
      const { tab } = page;
      // The bell shows the unseen count the feed answers.
      await tab.locator('.ss-feed-badge-text').filter({ hasText: '2' }).waitFor({ timeout: 20_000 });

      // Opening it lists Ann's notifications, newest first, and nobody else's.
      await tab.locator('.ss-feed-bell-container').click();
      await tab.locator('.ss-feed-notification').nth(1).waitFor({ timeout: 10_000 });
      expect(await bodies(tab)).toEqual(['Your order shipped', 'Your invoice is ready']);

      // A notification delivered now appears without a reload (the feed's socket).
      const [fresh] = await inbox.notify(['ann'], { text: 'A reply to your ticket' });
      await tab.locator('.ss-feed-notification', { hasText: 'A reply to your ticket' }).waitFor({ timeout: 15_000 });
      expect(await bodies(tab)).toEqual(['A reply to your ticket', 'Your order shipped', 'Your invoice is ready']);

      // Mark read from the notification's menu: Herald records it.
      await useMenu(tab, 'A reply to your ticket', 'Mark as read');
      await waitFor(
        async () => (await messages(t, inbox.ws, `?message_id=${fresh}`)).results[0]?.is_read === true,
        10_000,
        'the message read',
      );
      // The card now offers the opposite action.
      await tab
        .locator('.ss-feed-notification', { hasText: 'A reply to your ticket' })
        .locator('.ss-feed-notification-menu-popup-item', { hasText: 'Mark as unread' })
        .waitFor({ state: 'attached', timeout: 10_000 });

      // Archive: it leaves the list, and Herald records it.
      await useMenu(tab, 'Your invoice is ready', 'Archive');
      await tab
        .locator('.ss-feed-notification', { hasText: 'Your invoice is ready' })
        .waitFor({ state: 'detached', timeout: 10_000 });
      await waitFor(
        async () => (await messages(t, inbox.ws, `?message_id=${first}`)).results[0]?.is_archived === true,
        10_000,
        'the message archived',
      );
      expect(await bodies(tab)).toEqual(['A reply to your ticket', 'Your order shipped']);
      expect((await messages(t, inbox.ws, `?message_id=${second}`)).results[0]).toMatchObject({ is_read: false });
      expect(page.errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
