import { Type } from '@sinclair/typebox';
import type { NodemailerError } from 'nodemailer/lib/errors';
import type { DeliveryOutcome, DeliveryRequest, Provider, VendorConfig } from '../provider.js';
import {
  attemptDeadline,
  channelValue,
  nonEmptyString,
  refused,
  timeoutOf,
  TimeoutMsSchema,
  withoutSecrets,
} from './shared.js';

/**
 * Email over SMTP with nodemailer. `secure: true` is TLS from the first byte (port 465); otherwise the connection is
 * upgraded with STARTTLS whenever the server offers it (port 587 or 25). One connection per message: simple, and an
 * aborted or failed send never leaves a half-used connection behind for the next one.
 */
export const SmtpConfigSchema = Type.Object(
  {
    host: Type.String({ minLength: 1, maxLength: 255, description: "the SMTP server's host name or address" }),
    port: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 65535, description: 'default 465 when secure, 587 otherwise' }),
    ),
    secure: Type.Optional(
      Type.Boolean({ description: 'TLS from the start (port 465); false upgrades with STARTTLS when offered' }),
    ),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'the SMTP login' })),
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the SMTP password (secret)' })),
    from_email: Type.String({
      minLength: 3,
      maxLength: 254,
      pattern: '^[^\\s@]+@[^\\s@]+$',
      description: 'the sender address, like notifications@example.com',
    }),
    from_name: Type.Optional(Type.String({ maxLength: 256, description: 'the sender name shown to the recipient' })),
    timeout_ms: TimeoutMsSchema,
  },
  {
    additionalProperties: false,
    // Credentials come in pairs: a login without its password (or the reverse) is a typo, not "no auth".
    dependencies: { username: ['password'], password: ['username'] },
  },
);

/** Codes of failures on the way to the server, before it could judge the message: worth another attempt. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ESOCKET', 'ETIMEDOUT', 'EDNS', 'EPROXY']);

/**
 * RFC 5321 reply classes decide: 4yz is a transient negative completion (mailbox busy, greylisting, try later), 5yz a
 * permanent one (no such user, relaying denied, bad credentials); 503 (bad sequence of commands) is a session
 * problem, so nodemailer marks it not permanent. A failure without a reply is transient when it is the network's,
 * permanent otherwise (TLS refused, no credentials, an address nodemailer cannot use).
 */
function outcomeOfError(error: NodemailerError, deadline: ReturnType<typeof attemptDeadline>): DeliveryOutcome {
  if (error.code === 'EABORT') return deadline.outcomeOf(error);
  if (typeof error.responseCode === 'number') {
    const answer = (error.response ?? error.message).trim();
    const reason = error.command
      ? `SMTP server answered ${error.command} with ${answer}`
      : `SMTP server answered ${answer}`;
    const permanent = error.permanent ?? (error.responseCode >= 500 && error.responseCode !== 503);
    return {
      kind: permanent ? 'failed' : 'retry',
      reason,
      providerResponse: { code: error.responseCode, response: answer },
    };
  }
  const code = error.originalCode ?? error.code;
  const reason = code ? `${code}: ${error.message}` : error.message;
  return TRANSIENT_CODES.has(error.code ?? '') ? { kind: 'retry', reason } : { kind: 'failed', reason };
}

/** The checks both send and check make of the config, or the refusal. */
function configProblem(config: Record<string, unknown>): DeliveryOutcome | undefined {
  const { host, from_email: fromEmail, username, password } = config;
  if (!nonEmptyString(host) || !nonEmptyString(fromEmail)) return refused('vendor config needs host and from_email');
  if (nonEmptyString(username) !== nonEmptyString(password))
    return refused('vendor config needs username and password together (or neither, for a server without login)');
  return undefined;
}

// Loaded at the first send or check (shared.ts, loadJose).
let nodemailerModule: Promise<typeof import('nodemailer')> | undefined;

async function transportOf(config: Record<string, unknown>, timeoutMs: number) {
  const { default: nodemailer } = await (nodemailerModule ??= import('nodemailer'));
  const { username, password } = config;
  const secure = config.secure === true;
  // The attempt's deadline decides; nodemailer's own timers are a backstop a little later, so a slow server ends
  // with the same reason whichever phase it stalled in.
  const backstop = timeoutMs + 1000;
  return nodemailer.createTransport({
    host: config.host as string,
    port: typeof config.port === 'number' ? config.port : secure ? 465 : 587,
    secure,
    ...(nonEmptyString(username) && nonEmptyString(password) ? { auth: { user: username, pass: password } } : {}),
    connectionTimeout: backstop,
    greetingTimeout: backstop,
    socketTimeout: backstop,
    socketCloseTimeout: 0,
    logger: false,
    debug: false,
  });
}

async function send(vendor: VendorConfig, request: DeliveryRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
  const config = vendor.config;
  const problem = configProblem(config);
  if (problem) return problem;
  const fromEmail = config.from_email as string;
  const to = channelValue(request.channelIdentity);
  if (!nonEmptyString(to) || !to.includes('@')) return refused("the recipient's $email entry is not an email address");
  const { subject, html, text, list_unsubscribe } = request.content;
  if (!nonEmptyString(subject)) return refused('the rendered content has no subject');
  if (!nonEmptyString(html) && !nonEmptyString(text)) return refused('the rendered content has neither html nor text');

  const timeoutMs = timeoutOf(config);
  const transporter = await transportOf(config, timeoutMs);
  const deadline = attemptDeadline(signal, timeoutMs);
  try {
    const info = await transporter.sendMail({
      from: nonEmptyString(config.from_name) ? { name: config.from_name, address: fromEmail } : fromEmail,
      to,
      subject,
      ...(nonEmptyString(html) ? { html } : {}),
      ...(nonEmptyString(text) ? { text } : {}),
      // Lets a bounce or a complaint be traced back to the message.
      headers: {
        'X-Herald-Message-Id': request.messageId,
        // RFC 8058 one-click unsubscribe, on emails of categories the user may opt out of (preference-links.ts).
        ...(nonEmptyString(list_unsubscribe)
          ? { 'List-Unsubscribe': `<${list_unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
          : {}),
      },
      signal: deadline.signal,
    });
    return {
      kind: 'sent',
      providerMessageId: info.messageId,
      providerResponse: { response: info.response, accepted: info.accepted, rejected: info.rejected },
    };
  } catch (error) {
    return outcomeOfError(error as NodemailerError, deadline);
  } finally {
    transporter.close();
  }
}

/** nodemailer's verify(): connects, greets, upgrades to TLS as a send would, and logs in; sends nothing. */
async function check(vendor: VendorConfig, signal: AbortSignal): Promise<DeliveryOutcome> {
  const problem = configProblem(vendor.config);
  if (problem) return problem;
  const timeoutMs = timeoutOf(vendor.config);
  const transporter = await transportOf(vendor.config, timeoutMs);
  const deadline = attemptDeadline(signal, timeoutMs);
  // verify() takes no signal: the deadline ends the wait, and close() the connection.
  const aborted = new Promise<never>((_, reject) =>
    deadline.signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { code: 'EABORT' })), {
      once: true,
    }),
  );
  try {
    await Promise.race([transporter.verify(), aborted]);
    return { kind: 'sent' };
  } catch (error) {
    return outcomeOfError(error as NodemailerError, deadline);
  } finally {
    transporter.close();
  }
}

export const smtpProvider: Provider = withoutSecrets({
  name: 'smtp',
  channels: ['email'],
  configSchema: SmtpConfigSchema,
  send,
  check,
});
