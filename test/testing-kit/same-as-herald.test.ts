import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { Suprsend, WorkflowTriggerRequest } from '@suprsend/node-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHerald, type Delivery } from 'herald/testing';
import { capturingProviders } from '../../src/channels/capture.js';
import { providers as registeredProviders } from '../../src/channels/registry.js';
import { importWorkspaceFiles } from '../../src/workspace-files.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';
import { SmtpSink } from '../support/smtp-sink.js';
import { settledMessages } from '../support/engine-drivers.js';

// Each file starts Herald (a first start migrates an embedded database) and real peers: on a loaded
// two-core machine that takes minutes, not the suite's default 60 s.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 300_000 });

/**
 * The emulator is Herald: the same configuration and triggers, run through `startHerald` and through a
 * Herald with its worker and a local SMTP server, make the same decisions and render the same mail.
 * Only the transport differs (docs/testing-your-notifications.md, "What differs"): the emulator records
 * the message, and sends it only for a vendor named in `network`.
 */

const USER = 'herald';
const PASSWORD = 'smtp-password-0123';

describe('herald/testing differs from Herald only where the docs say', () => {
  // What Herald's own providers were handed, recorded the way the emulator records it, and then sent for real.
  const handed: Delivery[] = [];
  const providers = capturingProviders(registeredProviders, {
    record: (delivery) => handed.push(delivery),
    networked: () => true,
    now: Date.now,
  });
  // Herald's engine as users run it: a provider call may take its vendor's timeout and a retry waits its
  // real delay (tests elsewhere shorten both), and fan-out pages are the default size.
  const t = useTestApp(
    {},
    {
      engine: {
        renderer: 'templates',
        providers: [...providers.values()],
        // As the server's worker does (its PUBLIC_URL; this app listens on a port only known later).
        preferenceLinks: { publicUrl: 'http://herald.example/' },
        engine: { deliveryTimeoutMs: 30_000, retryDelayScale: 1, fanoutPageSize: 500 },
      },
    },
  );
  let sink: SmtpSink;
  let dir: string;

  beforeAll(async () => {
    sink = await SmtpSink.start({ username: USER, password: PASSWORD });
    // The customer's files, with the email vendor pointed at the local SMTP server (its password from the environment).
    dir = mkdtempSync(join(tmpdir(), 'herald-notifications-'));
    cpSync(fileURLToPath(new URL('./notifications', import.meta.url)), dir, { recursive: true });
    writeFileSync(
      join(dir, 'vendors', 'email.json'),
      JSON.stringify({
        channel: 'email',
        provider: 'smtp',
        is_default: true,
        config: {
          host: '127.0.0.1',
          port: sink.port,
          secure: false,
          username: USER,
          password: '$env:TEST_SMTP_PASSWORD',
          from_email: 'hello@example.com',
        },
      }),
    );
  });
  afterAll(async () => {
    await sink?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The newsletter to a subscriber and to a user who opted out, through the SDK; what each was told. */
  async function newsletterRun(baseUrl: string, creds: { key: string; secret: string; apiKey: string }) {
    const supr = new Suprsend(creds.key, creds.secret, { base_url: baseUrl });
    for (const id of ['eq-barbara', 'eq-alan']) await supr.users.upsert(id, { $email: [`${id}@example.com`] } as never);
    const optOut = await fetch(`${baseUrl}v1/user/eq-alan/preference/category/newsletter/`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${creds.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ preference: 'opt_out' }),
    });
    expect(optOut.ok).toBe(true);
    const ids: string[] = [];
    for (const recipient of ['eq-barbara', 'eq-alan']) {
      const response = await supr.workflows.trigger(
        new WorkflowTriggerRequest({ workflow: 'newsletter', recipients: [recipient], data: { headline: 'Same' } }),
      );
      ids.push(JSON.parse((response as unknown as { message: string }).message).message_id as string);
    }
    return ids;
  }

  const decisions = async (baseUrl: string, apiKey: string) => {
    const response = await fetch(`${baseUrl}v1/message/?workflow_slug=newsletter&limit=100`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const { results } = (await response.json()) as {
      results: { distinct_id?: string; recipient?: { distinct_id?: string }; status: string; reason?: string | null }[];
    };
    return results
      .map((m) => `${m.distinct_id ?? m.recipient?.distinct_id}: ${m.status}${m.reason ? `/${m.reason}` : ''}`)
      .sort();
  };

  /** A preference link without its host, workspace row id and expiry (each Herald has its own URL and rows; the link expires a fixed time after its send). */
  const link = (url: unknown) => {
    const match = /^https?:\/\/[^/]+\/unsubscribe\/([^.]+)\.[\w-]+$/.exec(String(url));
    if (!match) return url;
    const { exp, w, ...payload } = JSON.parse(Buffer.from(match[1]!, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    return { unsubscribe: payload, workspace: typeof w, expires: typeof exp };
  };
  /** A delivery without what differs by design between two runs: ids, the time, the transport. */
  const comparable = (delivery: Delivery) => ({
    channel: delivery.channel,
    vendor: { provider: delivery.vendor.provider, nickname: delivery.vendor.nickname },
    recipient: delivery.recipient,
    to: delivery.to,
    tenantId: delivery.tenantId,
    workflow: { slug: delivery.workflow.slug, node_ref: delivery.workflow.node_ref },
    content: { ...delivery.content, list_unsubscribe: link(delivery.content.list_unsubscribe) },
  });

  it('makes the same decisions and renders the same content as Herald with a real SMTP server', async () => {
    const env = { ...process.env, TEST_SMTP_PASSWORD: PASSWORD };
    // Herald, with its worker, over this run's database.
    const ws = await createWorkspaceFixture(t());
    if (!t().app.server.listening) await t().app.listen({ port: 0, host: '127.0.0.1' });
    const root = `http://127.0.0.1:${(t().app.server.address() as AddressInfo).port}/`;
    await importWorkspaceFiles(
      { managementUrl: `${root}management/`, serviceToken: ws.serviceToken, workspace: ws.slug },
      dir,
      env,
    );
    const ids = await newsletterRun(root, { key: ws.workspaceKey, secret: ws.workspaceSecret, apiKey: ws.apiKey });
    for (const id of ids) await settledMessages(t, ws, id, 1, 120_000);
    const heraldDecisions = await decisions(root, ws.apiKey);
    expect(sink.mails.map((sent) => sent.envelope.to)).toEqual([['eq-barbara@example.com']]);
    const mail = sink.mails[0]!.mail;
    expect(handed).toHaveLength(1);
    const heraldSent = handed[0]!;
    expect(heraldSent).toMatchObject({ to: 'eq-barbara@example.com', networked: true, outcome: 'sent' });
    // What the SMTP server received is what the provider was handed (nodemailer ends the HTML part with a
    // line break, which mailparser keeps).
    expect(mail.subject).toBe(heraldSent.content.subject);
    expect(mail.html).toBe(`${heraldSent.content.html as string}\n`);
    const unsubscribe = mail.headerLines.find((header) => header.key === 'list-unsubscribe')?.line;
    expect(unsubscribe?.replace(/\r\n\s+/g, ' ')).toBe(
      `List-Unsubscribe: <${heraldSent.content.list_unsubscribe as string}>`,
    );

    // The emulator, over the same files and the same calls.
    process.env.TEST_SMTP_PASSWORD = PASSWORD;
    const herald = await startHerald({ load: dir });
    try {
      await newsletterRun(herald.baseUrl, {
        key: herald.workspaceKey,
        secret: herald.workspaceSecret,
        apiKey: herald.apiKey,
      });
      await herald.clock.advance(0);
      expect(await decisions(herald.baseUrl, herald.apiKey)).toEqual(heraldDecisions);
      expect(heraldDecisions).toEqual(['eq-alan: not_to_be_triggered/user_opt_out', 'eq-barbara: sent_by_vendor']);
      const [delivery, ...more] = herald.deliveries();
      expect(more).toEqual([]);
      expect(delivery).toMatchObject({ to: 'eq-barbara@example.com', networked: false, outcome: 'sent' });
      // The same message to the same person through the same vendor, rendered the same, field for field;
      // only the identifiers of this run and the transport's answer differ.
      expect(comparable(delivery!)).toEqual(comparable(heraldSent));
      expect(link(delivery!.content.list_unsubscribe)).toMatchObject({
        unsubscribe: { d: 'eq-barbara', c: 'newsletter' },
      });
      expect(delivery!.content.subject).toBe(mail.subject);
      // Recorded, not sent: the SMTP server heard nothing more.
      expect(sink.mails).toHaveLength(1);
    } finally {
      await herald.close();
    }

    // A vendor named in `network` sends for real, and is still recorded.
    const networked = await startHerald({ load: dir, network: ['email'] });
    try {
      await newsletterRun(networked.baseUrl, {
        key: networked.workspaceKey,
        secret: networked.workspaceSecret,
        apiKey: networked.apiKey,
      });
      await networked.clock.advance(0);
      expect(sink.mails).toHaveLength(2);
      expect(sink.mails[1]!.envelope.to).toEqual(['eq-barbara@example.com']);
      expect(sink.mails[1]!.mail.subject).toBe(mail.subject);
      expect(sink.mails[1]!.mail.html).toBe(mail.html);
      expect(networked.deliveries()).toMatchObject([{ networked: true, outcome: 'sent' }]);
    } finally {
      await networked.close();
      delete process.env.TEST_SMTP_PASSWORD;
    }
  });
});
