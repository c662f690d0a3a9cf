import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { signLinkToken } from '../../src/crypto/signed-links.js';
import { useTestApp, TEST_SECRET_KEY } from '../support/app.js';
import { launchBrowser } from '../support/browser.js';
import { SmtpSink } from '../support/smtp-sink.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { callerFor } from '../support/preferences.js';
import { configClient } from '../support/config.js';
import { baseCall, engineWorkspace, liveWorkflow, node, settledMessages, trigger } from '../support/engine-drivers.js';

const USER = 'herald';
const PASSWORD = 'smtp-password-5d1e9c';
const PUBLIC_URL = 'http://herald.test';

/** A header as it was on the wire (mailparser turns List-* headers into objects). */
const rawHeader = (mail: ParsedMail, key: string) =>
  mail.headerLines.find((line) => line.key === key)?.line.replace(/^[^:]+:\s*/, '');

/**
 * The signed links every email can carry, RFC 8058 one-click unsubscribe over real SMTP, and the
 * hosted preference page in a real browser (no script, keyboard only).
 */
describe('preference links, one-click unsubscribe and the hosted preference page', () => {
  const signer = new SecretBox(TEST_SECRET_KEY);
  const t = useTestApp(
    {},
    {
      engine: {
        renderer: 'templates',
        engine: { preferenceLinks: { signer, publicUrl: PUBLIC_URL }, deliveryTimeoutMs: 10_000 },
      },
    },
  );
  let sink: SmtpSink;
  let base = '';

  beforeAll(async () => {
    sink = await SmtpSink.start({ username: USER, password: PASSWORD });
    base = await t().app.listen({ host: '127.0.0.1', port: 0 });
  }, 120_000);
  beforeEach(() => {
    sink.mails.length = 0;
  });
  afterAll(async () => {
    await sink?.close();
  });

  /** A workspace with an SMTP vendor, an email template using both links, and a workflow per category. */
  async function mailWorkspace() {
    const ws = await engineWorkspace(t);
    const config = configClient(t, ws);
    const vendor = await config.inject('POST', '/vendor/', {
      channel: 'email',
      provider: 'smtp',
      config: {
        host: '127.0.0.1',
        port: sink.port,
        secure: false,
        username: USER,
        password: PASSWORD,
        from_email: 'news@example.com',
        timeout_ms: 3000,
      },
    });
    expect(vendor.statusCode, vendor.body).toBe(201);
    const management = (method: 'POST' | 'PATCH', path: string, body: unknown) =>
      t().app.inject({
        method,
        url: `/management/v2/${ws.slug}${path}`,
        headers: ws.management,
        payload: body as object,
      });
    expect(
      (await management('POST', '/template/news/', { name: 'News', enabled_channels: ['email'] })).statusCode,
    ).toBeLessThan(300);
    const variant = await management('POST', '/template/news/channel/email/variant/default/', {
      locale: 'en',
      content: {
        subject: 'This week',
        html: '<p>Hello</p><a href="{{$preferences_url}}">Preferences</a> <a href="{{$unsubscribe_url}}">Unsubscribe</a>',
        text: 'Preferences: {{$preferences_url}}\nUnsubscribe: {{$unsubscribe_url}}',
      },
    });
    expect(variant.statusCode, variant.body).toBeLessThan(300);
    expect((await management('PATCH', '/template/news/commit/', {})).statusCode).toBeLessThan(300);
    await liveWorkflow(t, ws, 'offers', [node('send_email', { template: 'news' })], { category: 'offers' });
    await liveWorkflow(t, ws, 'security', [node('send_email', { template: 'news' })], {
      category: 'security-alerts',
    });
    await baseCall(t, ws)('POST', '/v1/user/ann/', { $email: ['ann@example.com'] });
    return ws;
  }

  async function mailOf(ws: WorkspaceFixture, workflow: string, extra: Record<string, unknown> = {}) {
    const answer = await trigger(t, ws, { workflow, recipients: ['ann'], data: {}, ...extra });
    expect(answer.statusCode, answer.body).toBe(202);
    const [message] = await settledMessages(t, ws, answer.json().message_id, 1, 30_000);
    expect(message!.status, JSON.stringify(message)).toBe('sent_by_vendor');
    const received = sink.mails.find((m) => m.mail.headers.get('x-herald-message-id') === message!.message_id);
    expect(received).toBeDefined();
    const text = received!.mail.text ?? '';
    return {
      mail: received!.mail,
      preferencesUrl: /Preferences: (\S+)/.exec(text)![1]!,
      unsubscribeUrl: /Unsubscribe: (\S+)/.exec(text)![1]!,
    };
  }
  const local = (url: string) => url.replace(PUBLIC_URL, base);

  it('an email of an opt-out category carries List-Unsubscribe; the one-click POST opts the user out', async () => {
    const ws = await mailWorkspace();
    const server = callerFor(t, ws);
    const { mail, unsubscribeUrl, preferencesUrl } = await mailOf(ws, 'offers');
    expect(unsubscribeUrl).toMatch(new RegExp(`^${PUBLIC_URL}/unsubscribe/[\\w-]+\\.[\\w-]+$`));
    expect(preferencesUrl).toMatch(new RegExp(`^${PUBLIC_URL}/preferences/[\\w-]+\\.[\\w-]+$`));
    expect(rawHeader(mail, 'list-unsubscribe')).toBe(`<${unsubscribeUrl}>`);
    expect(rawHeader(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(mail.html).toContain(`href="${preferencesUrl}"`);

    // A mail scanner's GET changes nothing: it shows a button.
    const page = await fetch(local(unsubscribeUrl));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<button type="submit">Unsubscribe</button>');
    expect(await server.preferenceOf('ann', 'offers')).toBe('opt_in');

    // What a mailbox provider sends (RFC 8058 §3.1).
    const oneClick = await fetch(local(unsubscribeUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(await server.preferenceOf('ann', 'offers')).toBe('opt_out');

    // A category the user may not leave: links in the body, no one-click header.
    await mailOf(ws, 'security').then(({ mail }) => {
      expect(rawHeader(mail, 'list-unsubscribe')).toBeUndefined();
      expect(rawHeader(mail, 'list-unsubscribe-post')).toBeUndefined();
    });
  });

  it('refuses a tampered, expired or foreign link with the same 404 page', async () => {
    const ws = await mailWorkspace();
    const { unsubscribeUrl } = await mailOf(ws, 'offers');
    const token = unsubscribeUrl.split('/').pop()!;
    const [body, tag] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), d: 'ben' }),
    ).toString('base64url');
    const expired = signLinkToken(signer, { w: ws.workspaceId, d: 'ann', t: 'default', c: 'offers', exp: 1 });
    const otherKey = signLinkToken(new SecretBox('another-secret-key-another-secret-key-0000'), {
      w: ws.workspaceId,
      d: 'ann',
      t: 'default',
      c: 'offers',
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    for (const bad of [`${forged}.${tag}`, expired, otherKey, 'nonsense', `${token}.x`]) {
      for (const [method, path] of [
        ['GET', 'preferences'],
        ['POST', 'preferences'],
        ['POST', 'unsubscribe'],
      ] as const) {
        const answer = await fetch(`${base}/${path}/${bad}`, {
          method,
          ...(method === 'POST'
            ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }
            : {}),
        });
        expect(answer.status, `${method} ${path} ${bad}`).toBe(404);
        expect(await answer.text()).toContain('This link is invalid or has expired');
      }
    }
    expect(await callerFor(t, ws).preferenceOf('ann', 'offers')).toBe('opt_in');
  });

  it('the preference page works in a real browser with the keyboard alone and no script', async () => {
    const ws = await mailWorkspace();
    const server = callerFor(t, ws);
    const { preferencesUrl } = await mailOf(ws, 'offers');
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const page = await context.newPage();
      await page.goto(local(preferencesUrl));
      expect(await page.title()).toBe('Notification preferences');
      const offers = page.getByLabel('offers');
      const newsletter = page.getByLabel('newsletter');
      expect(await offers.isChecked()).toBe(true);
      expect(await newsletter.isChecked()).toBe(false);
      expect(await page.getByLabel('security-alerts').isDisabled()).toBe(true);
      // Focus "newsletter", Space ticks it, Tab to "offers", Space clears it, Tab to Save, Enter.
      await newsletter.focus();
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.id')).toBe('category-offers');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent')).toBe('Save preferences');
      await page.keyboard.press('Enter');
      await page.getByRole('status').waitFor();
      expect(await page.getByRole('status').textContent()).toBe('Your preferences are saved.');
      expect(await page.getByLabel('offers').isChecked()).toBe(false);
      expect(await server.preferenceOf('ann', 'offers')).toBe('opt_out');
      expect(await server.preferenceOf('ann', 'newsletter')).toBe('opt_in');
      expect(await server.preferenceOf('ann', 'security-alerts')).toBe('opt_in');
    } finally {
      await browser.close();
    }
  }, 180_000);

  it("honours the tenant's hosted_preference_domain and embedded_preference_url", async () => {
    const ws = await mailWorkspace();
    const call = baseCall(t, ws);
    const hosted = await call('POST', '/v1/tenant/acme/', {
      tenant_name: 'Acme',
      hosted_preference_domain: 'https://preferences.acme.example',
    });
    expect(hosted.statusCode, hosted.body).toBeLessThan(300);
    const embedded = await call('POST', '/v1/tenant/globex/', {
      tenant_name: 'Globex',
      embedded_preference_url: 'https://globex.example/settings/notifications',
    });
    expect(embedded.statusCode, embedded.body).toBeLessThan(300);

    const inAcme = await mailOf(ws, 'offers', { tenant_id: 'acme' });
    expect(inAcme.preferencesUrl).toMatch(/^https:\/\/preferences\.acme\.example\/preferences\/[\w-]+\.[\w-]+$/);
    expect(inAcme.unsubscribeUrl).toMatch(/^https:\/\/preferences\.acme\.example\/unsubscribe\//);
    expect(rawHeader(inAcme.mail, 'list-unsubscribe')).toBe(`<${inAcme.unsubscribeUrl}>`);

    const inGlobex = await mailOf(ws, 'offers', { tenant_id: 'globex' });
    expect(inGlobex.preferencesUrl).toBe('https://globex.example/settings/notifications');
    expect(inGlobex.unsubscribeUrl).toMatch(new RegExp(`^${PUBLIC_URL}/unsubscribe/`));

    // The acme link opts out in acme only.
    const path = new URL(inAcme.unsubscribeUrl).pathname;
    const oneClick = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(await callerFor(t, ws).preferenceOf('ann', 'offers', 'acme')).toBe('opt_out');
    expect(await callerFor(t, ws).preferenceOf('ann', 'offers')).toBe('opt_in');
  });
});
