import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { NodemailerError } from 'nodemailer/lib/errors';
import type { DeliveryOutcome, DeliveryRequest, Provider, SendContext, VendorConfig } from '../provider.js';
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
 * upgraded with STARTTLS whenever the server offers it (port 587 or 25). Deliveries share a pool of connections per
 * vendor (nodemailer's `pool: true`, 100 messages a connection), so a broadcast does not greet and log in once per
 * mail; a changed config gets a new pool and the old one is closed, an idle pool closes after 90 s, and every pool
 * at shutdown (`close`). The vendor `test` action opens a connection of its own.
 *
 * A pooled send keeps the deadline rules of one connection per send: the pool has as many connections as the worker
 * has sends in flight (SendContext.parallelSends), so a send's deadline never runs while it waits for a connection;
 * a deadline that ends a send closes that send's connection (nodemailer), so no later send inherits a session left
 * in the middle of DATA. A message may then already be with the server (at least once, as without the pool). The
 * pool sends a message again on another connection only when not a byte of it went out (the server closed an idle
 * connection), and never after the deadline.
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

// Loaded at the first send or check (shared.ts, loadJose), once.
let nodemailerModule: Promise<typeof import('nodemailer')> | undefined;
const loadNodemailer = async () => (await (nodemailerModule ??= import('nodemailer'))).default;
type Nodemailer = Awaited<ReturnType<typeof loadNodemailer>>;

/** A transport with a connection of its own, or with `poolSize`, a pool of up to that many connections. */
function transportOf(nodemailer: Nodemailer, config: Record<string, unknown>, timeoutMs: number, poolSize?: number) {
  const { username, password } = config;
  const secure = config.secure === true;
  // The attempt's deadline decides; nodemailer's own timers are a backstop a little later, so a slow server ends
  // with the same reason whichever phase it stalled in.
  const backstop = timeoutMs + 1000;
  return nodemailer.createTransport({
    ...(poolSize ? { pool: true as const, maxConnections: poolSize } : {}),
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

type Transport = ReturnType<typeof transportOf>;

/**
 * An idle pool is one no send has used for `idleCloseMs`: longer than any attempt (timeout_ms is at most 60 s). Tests
 * shorten it; `pooled: false` is one connection per send, what bench/smtp-broadcast.ts compares the pool with.
 */
export const smtpPoolSettings = { idleCloseMs: 90_000, pooled: true };
/** The size of a pool opened by a send that does not say how many may run at once (a vendor test, a test run). */
const DEFAULT_POOL_SIZE = 5;
/** The pool of each vendor, with the config and the size it was opened for. */
const pools = new Map<string, { fingerprint: string; size: number; transport: Transport; idle: NodeJS.Timeout }>();

/**
 * The vendor's pooled transport, opened anew (the old one closed) when its config changed, or when the worker runs
 * more sends at once than the pool has connections. Sized so, a send never waits in the pool behind others while
 * its deadline runs: nodemailer opens a connection only when a message finds none free, so the pool never holds more
 * connections than the sends in flight, as many as one connection per send would open.
 */
function pooledTransport(
  nodemailer: Nodemailer,
  vendor: VendorConfig,
  timeoutMs: number,
  parallelSends: number | undefined,
): Transport {
  const fingerprint = createHash('sha256').update(JSON.stringify(vendor.config)).digest('hex');
  const held = pools.get(vendor.id);
  if (held && held.fingerprint === fingerprint && held.size >= (parallelSends ?? 0)) {
    held.idle.refresh();
    return held.transport;
  }
  if (held) closePool(vendor.id);
  const size = parallelSends ?? DEFAULT_POOL_SIZE;
  const transport = transportOf(nodemailer, vendor.config, timeoutMs, size);
  const idle = setTimeout(() => closePool(vendor.id), smtpPoolSettings.idleCloseMs).unref();
  pools.set(vendor.id, { fingerprint, size, transport, idle });
  return transport;
}

/** Closes the pool's idle connections now; one in the middle of a send finishes it first (nodemailer's close). */
function closePool(vendorId: string) {
  const held = pools.get(vendorId);
  if (!held) return;
  pools.delete(vendorId);
  clearTimeout(held.idle);
  held.transport.close();
}

/** Every pool closed (shutdown); the next send opens its vendor's again. */
export async function closeSmtpPools() {
  for (const vendorId of [...pools.keys()]) closePool(vendorId);
}

/** How many pools are open (tests). */
export const openSmtpPools = () => pools.size;

async function send(
  vendor: VendorConfig,
  request: DeliveryRequest,
  signal: AbortSignal,
  context?: SendContext,
): Promise<DeliveryOutcome> {
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
  const pooled = smtpPoolSettings.pooled;
  // Loaded before the pool is looked up, so that finding or opening the vendor's pool stays one synchronous step.
  const nodemailer = await loadNodemailer();
  const transporter = pooled
    ? pooledTransport(nodemailer, vendor, timeoutMs, context?.parallelSends)
    : transportOf(nodemailer, config, timeoutMs);
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
    if (!pooled) transporter.close();
  }
}

/** nodemailer's verify(): connects, greets, upgrades to TLS as a send would, and logs in; sends nothing. */
async function check(vendor: VendorConfig, signal: AbortSignal): Promise<DeliveryOutcome> {
  const problem = configProblem(vendor.config);
  if (problem) return problem;
  const timeoutMs = timeoutOf(vendor.config);
  const transporter = transportOf(await loadNodemailer(), vendor.config, timeoutMs);
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
  close: closeSmtpPools,
});
