import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_OUTBOUND } from '../../../src/channels/outbound.js';
import { closeSmtpPools, openSmtpPools, smtpPoolSettings, smtpProvider } from '../../../src/channels/providers/smtp.js';
import { waitFor } from '../../support/engine-drivers.js';
import { deliveryRequest, sendChecked, vendorOf } from '../../support/deliveries.js';
import { closedPort } from '../../support/http-peer.js';
import { silentServer, SmtpSink } from '../../support/smtp-sink.js';

const USER = 'herald';
const PASSWORD = 'smtp-password-8d3f0a6c1e';
let sink: SmtpSink;

const config = (extra: Record<string, unknown> = {}) => ({
  host: '127.0.0.1',
  port: sink.port,
  secure: false,
  username: USER,
  password: PASSWORD,
  from_email: 'notifications@example.com',
  from_name: 'Herald Notifications',
  timeout_ms: 5000,
  ...extra,
});
const content = {
  subject: 'Your order shipped',
  html: '<p>Hello <b>Ana</b>, it arrives <i>Tuesday</i>.</p>',
  text: 'Hello Ana, it arrives Tuesday.',
};
const send = (extra: Record<string, unknown> = {}, request = deliveryRequest('email', 'ana@example.org', content)) =>
  sendChecked(smtpProvider, vendorOf('smtp', config(extra)), request, { secrets: [PASSWORD] });

beforeAll(async () => {
  sink = await SmtpSink.start({ username: USER, password: PASSWORD });
});
beforeEach(() => {
  sink.mails.length = 0;
  sink.rcpt = 'accept';
});
afterAll(() => sink.close());

describe('smtp provider', () => {
  it('delivers the mail, logged in, with its sender, recipient, subject, html and text', async () => {
    const outcome = await send();
    expect(outcome.kind).toBe('sent');
    const [received] = sink.mails;
    expect(sink.mails).toHaveLength(1);
    expect(received!.user).toBe(USER);
    expect(received!.envelope).toEqual({ from: 'notifications@example.com', to: ['ana@example.org'] });
    const { mail } = received!;
    expect(mail.from?.value).toEqual([{ address: 'notifications@example.com', name: 'Herald Notifications' }]);
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.value : null).toEqual([
      { address: 'ana@example.org', name: '' },
    ]);
    expect(mail.subject).toBe('Your order shipped');
    expect(mail.html).toBe('<p>Hello <b>Ana</b>, it arrives <i>Tuesday</i>.</p>');
    expect(mail.text?.trim()).toBe('Hello Ana, it arrives Tuesday.');
    expect(mail.headers.get('x-herald-message-id')).toBe('01JDELIVERY0000000000000001');
    expect(outcome).toEqual({
      kind: 'sent',
      providerMessageId: mail.messageId,
      providerResponse: {
        response: '250 Queued as 4F1B2C',
        accepted: ['ana@example.org'],
        rejected: [],
      },
    });
  });

  it('takes a channel entry as the identity and sends a text-only mail', async () => {
    const entry = { value: 'bo@example.org', status: 'active', perma_status: 'active' };
    const outcome = await send({}, deliveryRequest('email', entry, { subject: 'Hi', text: 'plain' }));
    expect(outcome.kind).toBe('sent');
    expect(sink.mails[0]!.envelope.to).toEqual(['bo@example.org']);
    expect(sink.mails[0]!.mail.html).toBe(false);
  });

  it('fails for good when the login is refused, keeping the password out of the reason', async () => {
    expect(await send({ password: `${PASSWORD}-wrong` })).toEqual({
      kind: 'failed',
      reason: 'SMTP server answered AUTH PLAIN with 535 Invalid login for password ********',
      providerResponse: { code: 535, response: '535 Invalid login for password ********' },
    });
    expect(sink.mails).toHaveLength(0);
  });

  it('retries a 4xx answer (transient by RFC 5321) and fails a 5xx one (permanent)', async () => {
    sink.rcpt = { code: 451, message: 'Mailbox busy, try again later' };
    expect(await send()).toEqual({
      kind: 'retry',
      reason: 'SMTP server answered RCPT TO with 451 Mailbox busy, try again later',
      providerResponse: { code: 451, response: '451 Mailbox busy, try again later' },
    });
    sink.rcpt = { code: 550, message: 'No such user here' };
    expect(await send()).toEqual({
      kind: 'failed',
      reason: 'SMTP server answered RCPT TO with 550 No such user here',
      providerResponse: { code: 550, response: '550 No such user here' },
    });
    expect(sink.mails).toHaveLength(0);
  });

  it('retries when the connection is refused, dropped, or the server never greets', async () => {
    const port = await closedPort();
    expect(await send({ port })).toEqual({
      kind: 'retry',
      reason: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
    const dropping = await silentServer('drop');
    const silent = await silentServer('silent');
    try {
      expect(await send({ port: dropping.port })).toEqual({
        kind: 'retry',
        // The pool tries a dropped connection again before it gives up.
        reason: expect.stringMatching(/^ECONNECTION: /),
      });
      expect(await send({ port: silent.port, timeout_ms: 500 })).toEqual({
        kind: 'retry',
        reason: 'timed out after 500 ms',
      });
    } finally {
      await Promise.all([dropping.close(), silent.close()]);
    }
  });

  it('stops when the engine aborts the attempt', async () => {
    const silent = await silentServer('silent');
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const outcome = await sendChecked(
        smtpProvider,
        vendorOf('smtp', config({ port: silent.port })),
        deliveryRequest('email', 'ana@example.org', content),
        { signal: controller.signal },
      );
      expect(outcome).toEqual({ kind: 'retry', reason: 'aborted before the provider answered' });
    } finally {
      await silent.close();
    }
  });

  it('fails for good, without connecting, on a login without its password, or a recipient or content that cannot make a mail', async () => {
    expect(await send({}, deliveryRequest('email', '+14155550123', content))).toEqual({
      kind: 'failed',
      reason: "the recipient's $email entry is not an email address",
    });
    expect(await send({}, deliveryRequest('email', 'ana@example.org', { html: '<p>x</p>' }))).toEqual({
      kind: 'failed',
      reason: 'the rendered content has no subject',
    });
    expect(await send({ password: undefined })).toEqual({
      kind: 'failed',
      reason: 'vendor config needs username and password together (or neither, for a server without login)',
    });
    expect(sink.mails).toHaveLength(0);
  });

  it('keeps one pool of connections per vendor: reused across sends, replaced when the config changes, closed at shutdown', async () => {
    await closeSmtpPools();
    await waitFor(async () => sink.open === 0, 5000, 'earlier connections closed');
    const before = sink.connections;
    const vendor = vendorOf('smtp', config());
    const request = (i: number) => deliveryRequest('email', `user${i}@example.org`, content);
    for (let i = 0; i < 20; i++)
      expect((await smtpProvider.send(vendor, request(i), new AbortController().signal)).kind).toBe('sent');
    expect(sink.mails).toHaveLength(20);
    // One connection, logged in once, carried all twenty (one after the other).
    expect(sink.connections - before).toBe(1);
    expect(openSmtpPools()).toBe(1);
    // A changed config (another sender) is a new pool; the old one's connection is closed.
    const changed = { ...vendor, config: config({ from_email: 'billing@example.com' }) };
    expect((await smtpProvider.send(changed, request(20), new AbortController().signal)).kind).toBe('sent');
    expect(sink.connections - before).toBe(2);
    expect(openSmtpPools()).toBe(1);
    await waitFor(async () => sink.open === 1, 5000, 'the old pool closed');
    // Shutdown closes every pool (providers' close, called by the server).
    await smtpProvider.close!();
    expect(openSmtpPools()).toBe(0);
    await waitFor(async () => sink.open === 0, 5000, 'the pool closed at shutdown');
  });

  it('sizes the pool to the sends the worker runs at once, so none waits for a connection while its deadline runs', async () => {
    await closeSmtpPools();
    await waitFor(async () => sink.open === 0, 5000, 'earlier connections closed');
    const vendor = vendorOf('smtp', config());
    const request = (i: number) => deliveryRequest('email', `user${i}@example.org`, content);
    const burst = (from: number, parallelSends?: number) =>
      Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          smtpProvider.send(vendor, request(from + i), new AbortController().signal, {
            outbound: DEFAULT_OUTBOUND,
            ...(parallelSends ? { parallelSends } : {}),
          }),
        ),
      );
    // A send that does not say (a vendor test, a test run) opens a small pool: twelve at once share five connections.
    let before = sink.connections;
    expect((await burst(0)).map((o) => o.kind)).toEqual(Array(12).fill('sent'));
    expect(sink.connections - before).toBe(5);
    // The worker says how many it runs at once: the pool is reopened that large, and each of twelve gets its own.
    before = sink.connections;
    expect((await burst(12, 12)).map((o) => o.kind)).toEqual(Array(12).fill('sent'));
    expect(sink.connections - before).toBe(12);
    // The next burst reuses them, and a send that does not say keeps the larger pool.
    before = sink.connections;
    expect((await burst(24, 12)).map((o) => o.kind)).toEqual(Array(12).fill('sent'));
    expect((await burst(36)).map((o) => o.kind)).toEqual(Array(12).fill('sent'));
    expect(sink.connections - before).toBe(0);
    expect(sink.mails).toHaveLength(48);
    expect(new Set(sink.mails.map((m) => m.envelope.to[0])).size).toBe(48);
    await closeSmtpPools();
    await waitFor(async () => sink.open === 0, 5000, 'the pool closed');
  });

  it('closes a pool no send has used for a while (90 s; here 2 s), and opens it again for the next send', async () => {
    await closeSmtpPools();
    await waitFor(async () => sink.open === 0, 5000, 'earlier connections closed');
    const vendor = vendorOf('smtp', config());
    const sendOne = (to: string) =>
      smtpProvider.send(vendor, deliveryRequest('email', to, content), new AbortController().signal);
    const { idleCloseMs } = smtpPoolSettings;
    // Sends 0.5 s apart keep it open with 1.5 s to spare: a loaded machine's pauses do not close it early.
    smtpPoolSettings.idleCloseMs = 2000;
    try {
      const before = sink.connections;
      expect((await sendOne('idle1@example.org')).kind).toBe('sent');
      // Each send puts the closing off again.
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(openSmtpPools()).toBe(1);
        expect((await sendOne(`idle${i + 2}@example.org`)).kind).toBe('sent');
      }
      expect(sink.connections - before).toBe(1);
      await waitFor(async () => openSmtpPools() === 0, 5000, 'the idle pool closed');
      await waitFor(async () => sink.open === 0, 5000, 'its connection closed');
      expect((await sendOne('again@example.org')).kind).toBe('sent');
      expect(sink.connections - before).toBe(2);
    } finally {
      smtpPoolSettings.idleCloseMs = idleCloseMs;
      await closeSmtpPools();
    }
  });
});
