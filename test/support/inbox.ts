import { createHmac } from 'node:crypto';
import { importPKCS8, SignJWT } from 'jose';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { RenderOutcome, RenderRequest } from '../../src/channels/rendering.js';
import { useTestApp, type TestApp } from './app.js';
import { bundleForBrowser, launchBrowser, servePage } from './browser.js';
import { testRenderer } from './engine.js';
import type { WorkspaceFixture } from './fixtures.js';
import { engineWorkspace, inbox, liveWorkflow, settledMessages, trigger } from './engine-drivers.js';

/**
 * Inbox content from the trigger's data: the test renderer's, plus `tags`, `is_pinned`, `url` and
 * `actions` when the data has them (what a template's inbox variant renders).
 */
export async function inboxRenderer(request: RenderRequest): Promise<RenderOutcome> {
  const outcome = await testRenderer(request);
  if (!outcome.ok || request.channel !== 'inbox') return outcome;
  const { tags, pinned, url, actions } = request.context.data as Record<string, unknown>;
  return {
    ...outcome,
    content: {
      ...outcome.content,
      ...(tags ? { tags } : {}),
      ...(pinned ? { is_pinned: true } : {}),
      ...(url ? { url } : {}),
      ...(actions ? { actions } : {}),
    },
  };
}

export interface InboxWorkspace {
  ws: WorkspaceFixture;
  publicKey: string;
  signingKeyPem: string;
  /** A user token as the customer's server mints it (docs/channels.md). */
  mint(
    distinctId: string,
    options?: { tenantId?: string; expiresIn?: string | number; claims?: Record<string, unknown> },
  ): Promise<string>;
  /** Delivers one inbox notification per recipient; resolves with the message ids once delivered. */
  notify(recipients: string[], data?: Record<string, unknown>, extra?: Record<string, unknown>): Promise<string[]>;
}

/** A workspace with preference categories, a public key, a signing key and a live inbox workflow. */
export async function inboxWorkspace(t: () => TestApp): Promise<InboxWorkspace> {
  const ws = await engineWorkspace(t);
  const management = (method: 'POST', path: string, payload?: object) =>
    t().app.inject({ method, url: `/management/v1/${ws.slug}/${path}`, headers: ws.management, payload });
  const pub = await management('POST', 'ws_public_key/', { name: 'web-app' });
  if (pub.statusCode !== 201) throw new Error(`public key: ${pub.body}`);
  const signing = await management('POST', 'ws_signing_key/');
  if (signing.statusCode !== 201) throw new Error(`signing key: ${signing.body}`);
  const signingKeyPem = signing.json().private_key_pem as string;
  const key = await importPKCS8(signingKeyPem, 'ES256');
  await liveWorkflow(t, ws, 'feed', [inbox('note')]);
  await liveWorkflow(t, ws, 'offers', [inbox('offer')], { category: 'offers' });
  return {
    ws,
    publicKey: pub.json().api_key,
    signingKeyPem,
    mint: (distinctId, options = {}) =>
      new SignJWT({
        entity_type: 'subscriber',
        entity_id: distinctId,
        ...(options.tenantId ? { scope: { tenant_id: options.tenantId } } : {}),
        ...options.claims,
      })
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuedAt()
        .setExpirationTime(options.expiresIn ?? '1h')
        .sign(key),
    async notify(recipients, data = {}, extra = {}) {
      const answer = await trigger(t, ws, { workflow: 'feed', recipients, data, ...extra });
      if (answer.statusCode !== 202) throw new Error(`trigger: ${answer.body}`);
      const settled = await settledMessages(t, ws, answer.json().message_id, recipients.length);
      for (const message of settled)
        if (message.status !== 'delivered') throw new Error(`not delivered: ${JSON.stringify(message)}`);
      return recipients.map((r) => settled.find((m) => m.recipient.distinct_id === r)!.message_id as string);
    },
  };
}

/** Calls the feed as the web SDK does: the public key and the user token on every call. */
export function feedClient(t: () => TestApp, publicKey: string, token: string) {
  return (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t().app.inject({
      method,
      url,
      headers: { authorization: publicKey, 'x-ss-signature': token, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload }),
    });
}

export const storeParam = (store: object) => encodeURIComponent(JSON.stringify(store));

/** The older inbox clients' subscriber id: base64url(HMAC-SHA256(inbox secret, distinct_id)), as they compute it. */
export const subscriberIdOf = (secret: string, distinctId: string) =>
  createHmac('sha256', secret).update(distinctId, 'utf8').digest('base64url');

/**
 * Herald (engine, inbox renderer) listening on 127.0.0.1 for an SDK in this process: `app.base()` is its address;
 * what a test pushes on `cleanups` (an SDK's reset) runs after the file.
 */
export function useListeningInboxApp() {
  const t = useTestApp({}, { engine: { engine: { render: inboxRenderer } } });
  let base = '';
  const cleanups: (() => unknown)[] = [];
  beforeAll(async () => {
    base = await t().app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });
  return { t, base: () => base, cleanups };
}

/**
 * An inbox client in a browser: Herald (engine, inbox renderer) listening on 127.0.0.1, one Chromium, and the
 * client's test page (`entry`, bundled with esbuild) for the file.
 */
export function useInboxPage(entry: string) {
  const t = useTestApp({}, { engine: { engine: { render: inboxRenderer } } });
  const page = { t, browser: undefined as unknown as Browser, bundle: '', host: '' };
  beforeAll(async () => {
    page.host = await t().app.listen({ host: '127.0.0.1', port: 0 });
    [page.browser, page.bundle] = await Promise.all([launchBrowser(), bundleForBrowser(entry)]);
  });
  afterAll(async () => {
    await page.browser?.close();
  });
  return page;
}

/** Makes the workspace's inbox secret through the management API (the answer is the only time it is whole). */
export async function makeInboxSecret(t: () => TestApp, inbox: InboxWorkspace): Promise<string> {
  const made = await t().app.inject({
    method: 'POST',
    url: `/management/v1/${inbox.ws.slug}/inbox_secret/`,
    headers: inbox.ws.management,
  });
  if (made.statusCode !== 201) throw new Error(`inbox secret: ${made.body}`);
  return made.json().secret as string;
}

/**
 * The client's page in a fresh browser context: `window.HERALD = config`, then the bundle, which mounts on the
 * element `rootId`. `prepare` sets the context up before the page loads. Page errors are collected.
 */
export async function openClientPage(
  inboxPage: ReturnType<typeof useInboxPage>,
  config: object,
  options: { rootId?: string; prepare?: (context: BrowserContext) => Promise<void> } = {},
) {
  const html =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>app</title></head><body>' +
    `<div id="${options.rootId ?? 'root'}"></div><script>window.HERALD = ${JSON.stringify(config)}</script>` +
    '<script src="/app.js"></script></body></html>';
  const page = await servePage(html, inboxPage.bundle);
  const context = await inboxPage.browser.newContext();
  const close = async () => {
    await context.close();
    await page.close();
  };
  try {
    await options.prepare?.(context);
    const tab = await context.newPage();
    const errors: string[] = [];
    tab.on('pageerror', (error) => errors.push(String(error)));
    await tab.goto(page.url);
    return { tab, errors, close };
  } catch (error) {
    await close();
    throw error;
  }
}
