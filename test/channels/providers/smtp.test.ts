import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { smtpProvider } from '../../../src/channels/providers/smtp.js';
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
        reason: 'ECONNECTION: Connection closed unexpectedly',
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
});
