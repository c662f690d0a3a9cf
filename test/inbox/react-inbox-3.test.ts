import { describe, expect, it } from 'vitest';
import { messages, waitFor } from '../support/engine-drivers.js';
import { inboxWorkspace, makeInboxSecret, openClientPage, subscriberIdOf, useInboxPage } from '../support/inbox.js';

/**
 * The older React inbox (@suprsend/react-inbox 3.9.0 over @suprsend/js-inbox 2, unchanged), bundled with
 * esbuild into a page as a customer's app would be, driven in headless Chromium against a real Herald.
 * The page uses the component's own customisation props (bellComponent, badgeComponent,
 * notificationComponent) for stable selectors; the store, the calls and the socket are the package's.
 */
const ENTRY = `
import React from 'react';
import { createRoot } from 'react-dom/client';
import SuprSendInbox from '@suprsend/react-inbox';
const c = window.HERALD;
const h = React.createElement;
createRoot(document.getElementById('root')).render(
  h(SuprSendInbox, {
    workspaceKey: c.workspaceKey,
    distinctId: c.distinctId,
    subscriberId: c.subscriberId,
    host: { apiHost: c.host, socketHost: c.host, collectorHost: c.collectorHost },
    hideToast: true,
    bellComponent: () => h('button', { id: 'bell' }, 'bell'),
    badgeComponent: ({ count }) => h('span', { id: 'badge' }, String(count)),
    notificationComponent: ({ notificationData, markRead, markArchived }) =>
      h('div', { className: 'note', 'data-read': String(Boolean(notificationData.seen_on)) },
        h('span', { className: 'text' }, notificationData.message.text),
        h('button', { className: 'read', onClick: markRead }, 'read'),
        h('button', { className: 'archive', onClick: markArchived }, 'archive')),
  }),
);
`;

describe('the older React inbox (@suprsend/react-inbox 3) in a browser', () => {
  const inboxPage = useInboxPage(ENTRY);
  const { t } = inboxPage;

  it('shows the badge and the list, receives a notification live, marks read and archives', async () => {
    const inbox = await inboxWorkspace(t);
    const secret = await makeInboxSecret(t, inbox);
    const [first] = await inbox.notify(['ann'], { text: 'Your invoice is ready' });
    await inbox.notify(['ann'], { text: 'Your order shipped' });
    await inbox.notify(['ben'], { text: 'Not for Ann' });
    const config = {
      host: inboxPage.host,
      workspaceKey: inbox.ws.workspaceKey,
      distinctId: 'ann',
      subscriberId: subscriberIdOf(secret, 'ann'),
      // Where its clicks go (docs/clients.md): the path carries the subscriber proof.
      collectorHost: `${inboxPage.host}/collector/ann/${subscriberIdOf(secret, 'ann')}`,
    };
    const { tab, errors, close } = await openClientPage(inboxPage, config);
    try {
      const texts = () => tab.locator('.note .text').allInnerTexts();

      await tab.locator('#badge', { hasText: '2' }).waitFor({ timeout: 20_000 });
      await tab.locator('#bell').click();
      await tab.locator('.note').nth(1).waitFor({ timeout: 10_000 });
      expect(await texts()).toEqual(['Your order shipped', 'Your invoice is ready']);

      // Delivered now: the socket's new_notification, then the client fetches it.
      const [fresh] = await inbox.notify(['ann'], { text: 'A reply to your ticket' });
      await tab.locator('.note', { hasText: 'A reply to your ticket' }).waitFor({ timeout: 15_000 });
      expect(await texts()).toEqual(['A reply to your ticket', 'Your order shipped', 'Your invoice is ready']);

      await tab.locator('.note', { hasText: 'A reply to your ticket' }).locator('.read').click();
      await waitFor(
        async () => (await messages(t, inbox.ws, `?message_id=${fresh}`)).results[0]?.is_read === true,
        10_000,
        'the message read',
      );
      await tab.locator('.note[data-read="true"]', { hasText: 'A reply to your ticket' }).waitFor({ timeout: 10_000 });

      await tab.locator('.note', { hasText: 'Your invoice is ready' }).locator('.archive').click();
      await tab.locator('.note', { hasText: 'Your invoice is ready' }).waitFor({ state: 'detached', timeout: 10_000 });
      await waitFor(
        async () => (await messages(t, inbox.ws, `?message_id=${first}`)).results[0]?.is_archived === true,
        10_000,
        'the message archived',
      );
      expect(await texts()).not.toContain('Not for Ann');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
