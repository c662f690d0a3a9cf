import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { SmtpSink } from '../support/smtp-sink.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { engineWorkspace } from '../support/engine-drivers.js';
import {
  assertTokenNowhereButSession,
  consoleWindow,
  hasRoute,
  screenshot,
  signIn,
  useConsoleHerald,
} from '../support/console.js';

/**
 * The console driven as an operator uses it, in headless Chromium against a real Herald (engine,
 * database, a real SMTP server): sign in, a vendor, a template with its preview, a workflow made and
 * committed in the editor, a trigger, its message and run trace, a test run of a draft, sign out.
 * The steps run in order on one page, as one person's session.
 */
// One browser and one Herald for the file; each step waits on what a person would see, under a generous timeout.
describe('the console, as an operator uses it', { timeout: 120_000 }, () => {
  const herald = useConsoleHerald();
  const t = () => herald().t;
  let baseUrl: string;
  let ws: WorkspaceFixture;
  let sink: SmtpSink;
  let context: BrowserContext;
  let page: Page;
  let requests: Request[];
  let pageErrors: string[];
  const twins = () => ({
    messages: hasRoute(t(), 'GET', '/management/v1/:workspace/message/'),
    runs: hasRoute(t(), 'GET', '/management/v1/:workspace/workflow_run/:execution_id/'),
    preview: hasRoute(t(), 'POST', '/management/v1/:workspace/template/:slug/preview/'),
    testRun: hasRoute(t(), 'POST', '/management/v1/:workspace/workflow/:slug/test_run/'),
  });

  beforeAll(async () => {
    baseUrl = herald().baseUrl;
    [ws, sink] = await Promise.all([
      engineWorkspace(t),
      SmtpSink.start({ username: 'mailer', password: 'mail-secret' }),
    ]);
    ({ context, page, requests, errors: pageErrors } = await consoleWindow(herald().browser));
  }, 180_000);
  afterAll(async () => {
    await context?.close();
    await sink?.close();
  });

  it('GET / redirects to the console; signing in keeps the token in session storage only', async () => {
    await signIn(page, baseUrl, ws);
    await expect.poll(() => page.url()).toBe(`${baseUrl}/console/workflows`);
    const nav = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    expect(await nav.allTextContents()).toEqual([
      'Workflows',
      'Templates',
      'Vendors',
      'Users',
      'Messages',
      'Runs',
      'Preferences',
      'Keys',
      'Queue',
    ]);
    expect(await page.locator('h1').allTextContents()).toEqual(['Workflows']);
    expect(await page.evaluate(() => sessionStorage.getItem('herald.console.token'))).toBe(ws.serviceToken);
    await expect.poll(() => page.getByText('No workflows yet.').count()).toBe(1);
    await screenshot(page, 'workflows-empty');
    await assertTokenNowhereButSession(context, page, requests, ws.serviceToken);
  });

  it('creates an SMTP vendor, whose secret comes back masked, and test-sends through it', async () => {
    await page.getByRole('link', { name: 'Vendors' }).click();
    await page.getByRole('heading', { level: 1, name: 'Vendors' }).waitFor();
    await page.getByRole('button', { name: 'New vendor' }).click();
    const config = {
      host: '127.0.0.1',
      port: sink.port,
      secure: false,
      username: 'mailer',
      password: 'mail-secret',
      from_email: 'notifications@example.com',
      // Generous: a loaded machine must not turn a slow answer into a retried, second mail.
      timeout_ms: 60_000,
    };
    await page.getByLabel('Nickname').fill('Local SMTP');
    await page.getByLabel('Config (JSON)').fill(JSON.stringify(config, null, 2));
    await page.getByRole('button', { name: 'Create vendor' }).click();
    const row = page.getByRole('row', { name: /Local SMTP/ });
    await row.waitFor();
    await row.getByRole('button', { name: 'Edit' }).click();
    expect(JSON.parse(await page.getByLabel('Config (JSON)').inputValue())).toMatchObject({ password: '********' });
    await page.keyboard.press('Escape');
    await row.getByRole('button', { name: 'Test send' }).click();
    await page.getByRole('button', { name: 'Run test' }).click();
    await page.getByText('It works.').waitFor();
    await page.keyboard.press('Escape');
    expect(sink.mails).toHaveLength(0);
  });

  it('creates a template and writes its email, the preview following the edits', async () => {
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByRole('dialog').getByLabel('Slug').fill('welcome');
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Welcome');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome' }).waitFor();
    await page.getByLabel('Subject').fill('Hello {{name}}');
    await page.getByLabel('HTML body').fill('<h2>Hi {{name}}</h2><p>Welcome aboard.</p>');
    await page.getByLabel('Plain-text body').fill('Hi {{name}}, welcome aboard.');
    await page.getByText('Draft saved').waitFor();
    if (twins().preview) {
      const preview = page.getByLabel('Preview');
      await expect.poll(() => preview.textContent()).toContain('Hello Ada');
      const frame = page.frameLocator('iframe[title="Template preview"]');
      await expect.poll(() => frame.locator('h2').textContent()).toBe('Hi Ada');
      await page.getByLabel('Subject').fill('Hello {{name}}!');
      await expect.poll(() => preview.textContent()).toContain('Hello Ada!');
    } else {
      await page.getByText('Not available on this server.').waitFor();
    }
    await screenshot(page, 'template-editor');
    await page.getByLabel('Commit message').fill('first version');
    await page.getByRole('button', { name: 'Commit template' }).click();
    await page.getByText('Committed: version 1 is live.').waitFor();
  });

  it('creates a workflow in the editor: the diagram shows its nodes and an error at its node, then commits it', async () => {
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.getByRole('button', { name: 'New workflow' }).click();
    await page.getByRole('dialog').getByLabel('Slug').fill('welcome-flow');
    await page.getByRole('dialog').getByLabel('Name', { exact: true }).fill('Welcome flow');
    await page.getByRole('dialog').getByLabel('Category').fill('order-updates');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome flow' }).waitFor();
    await page.locator('[data-node-ref="send_email_1"]').waitFor();

    const editor = page.getByLabel('Workflow JSON');
    const body = JSON.parse(await editor.inputValue());
    body.tree.nodes = [
      { node_type: 'send_email', name: 'Welcome email', properties: { template: 'welcome' } },
      { node_type: 'teleport', name: 'Beam' },
    ];
    await editor.fill(JSON.stringify(body, null, 2));
    await page.getByRole('button', { name: 'Save draft' }).click();
    const bad = page.locator('.node[data-path="tree.nodes[1]"]');
    await expect.poll(() => bad.getAttribute('class')).toContain('invalid');
    expect(await bad.textContent()).toContain("node type 'teleport' is not supported");
    await screenshot(page, 'workflow-editor-error');

    body.tree.nodes = [
      { node_type: 'send_email', name: 'Welcome email', properties: { template: 'welcome' } },
      { node_type: 'delay', name: 'Wait a day', properties: { duration: '1d' } },
      { node_type: 'send_email', name: 'Follow-up', properties: { template: 'welcome' } },
    ];
    await editor.fill(JSON.stringify(body, null, 2));
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft saved. It is valid').waitFor();
    expect(
      await page.locator('.node').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-node-ref'))),
    ).toEqual(['send_email_1', 'delay_1', 'send_email_2']);
    await page.getByLabel('Commit message').fill('welcome, then a follow-up');
    await page.getByRole('button', { name: 'Commit' }).click();
    await page.getByText('Committed: the draft is now live.').waitFor();
    await expect.poll(() => page.getByText('live v1').count()).toBe(1);
    await screenshot(page, 'workflow-editor');
  });

  it('a trigger with an API key is delivered, and its message and run trace are found in the console', async () => {
    const answer = await fetch(`${baseUrl}/trigger/`, {
      method: 'POST',
      headers: { authorization: ws.base.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({
        workflow: 'welcome-flow',
        recipients: [{ distinct_id: 'ada', $email: ['ada@example.com'] }],
        data: { name: 'Ada' },
      }),
    });
    expect(answer.status).toBe(202);
    const { message_id: executionId } = (await answer.json()) as { message_id: string };
    await expect.poll(() => sink.mails.length, { timeout: 60_000 }).toBe(1);
    expect(sink.mails[0]!.mail.subject).toBe(twins().preview ? 'Hello Ada!' : 'Hello Ada');

    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByRole('heading', { level: 1, name: 'Messages' }).waitFor();
    if (twins().messages) {
      await page.getByLabel('Workflow', { exact: true }).fill('welcome-flow');
      await page.getByLabel('Workflow', { exact: true }).press('Enter');
      const row = page.getByRole('row', { name: /ada/ }).first();
      await row.waitFor();
      await row.getByRole('link').first().click();
      await page.getByRole('heading', { level: 1, name: 'Message' }).waitFor();
      await expect.poll(() => page.locator('dl.facts').textContent()).toContain('Local SMTP');
      // Every attempt, with its outcome.
      const attempts = page.getByRole('table', { name: 'Delivery attempts' });
      await expect.poll(() => attempts.locator('tbody tr').count()).toBeGreaterThanOrEqual(1);
      expect(await attempts.textContent()).toContain('sent');
      await screenshot(page, 'message');
    } else {
      await page.getByText('Not available on this server.').waitFor();
    }

    await page.getByRole('link', { name: 'Runs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    if (!twins().runs) {
      await page.getByText('Not available on this server.').waitFor();
      return;
    }
    await page.getByLabel('Workflow', { exact: true }).fill('welcome-flow');
    await page.getByLabel('Workflow', { exact: true }).press('Enter');
    await page.getByRole('link', { name: executionId }).click();
    await page.getByRole('heading', { level: 1, name: 'Run' }).waitFor();
    const steps = page.getByRole('list', { name: 'Steps for ada' });
    await expect.poll(() => steps.textContent()).toContain('send_email_1');
    await expect.poll(() => steps.textContent()).toContain('delay_1');
    await screenshot(page, 'run-trace');
  });

  it('test-runs the draft for one recipient: the path it would take, nothing sent', async () => {
    await page.getByRole('link', { name: 'Workflows' }).click();
    await page.getByRole('link', { name: 'Welcome flow' }).click();
    const sent = sink.mails.length;
    await page.getByRole('tab', { name: 'Test run' }).click();
    await page.getByLabel('Recipient distinct_id').fill('ada');
    await page.getByLabel('Data (JSON)').fill('{"name": "Grace"}');
    await page.getByRole('button', { name: 'Run test' }).click();
    if (!twins().testRun) {
      await page.getByText('Not available on this server.').waitFor();
    } else {
      const steps = page.getByRole('list', { name: 'Test run steps' });
      await expect.poll(() => steps.textContent()).toContain('send_email_1');
      expect(await steps.textContent()).toContain('delay_1');
      // Per delivery: the decision, the vendor, the rendered content (in its sandboxed frame).
      const delivery = page.getByLabel('Delivery on email').first();
      expect(await delivery.textContent()).toContain('would send');
      expect(await delivery.textContent()).toContain('Local SMTP');
      expect(await delivery.locator('iframe').getAttribute('sandbox')).not.toBeNull();
      await page.getByText('Nothing was written, sent or queued.').waitFor();
      await screenshot(page, 'test-run');
    }
    expect(sink.mails).toHaveLength(sent);
  });

  it('finds a user by distinct_id and shows their profile, evaluated preferences, messages and runs', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await page.getByLabel('Search by distinct_id').fill('ad');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('link', { name: 'ada', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'User ada' }).waitFor();
    const grid = page.getByRole('table', { name: 'Evaluated preferences' });
    await expect.poll(() => grid.textContent()).toContain('order-updates');
    expect(await grid.textContent()).toContain('sends');
    await expect.poll(() => page.getByText('ada@example.com').count()).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'welcome-flow' }).first().waitFor();
    await screenshot(page, 'user');
  });

  it('signing out forgets the token; no page ever put it in a URL, local storage or a cookie', async () => {
    for (const name of ['Users', 'Runs', 'Preferences', 'Keys', 'Queue']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name }).waitFor();
      expect(await page.locator('h1').count()).toBe(1);
    }
    await assertTokenNowhereButSession(context, page, requests, ws.serviceToken);
    expect(
      requests.some(
        (r) => r.url().includes('/management/') && r.headers().authorization === `ServiceToken ${ws.serviceToken}`,
      ),
    ).toBe(true);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});
