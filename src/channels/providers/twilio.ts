import { createHmac } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { constantTimeEqual } from '../../crypto/tokens.js';
import type { DeliveryOutcome, DeliveryRequest, Provider, SendContext, VendorConfig } from '../provider.js';
import {
  attemptDeadline,
  baseUrl,
  baseUrlOf,
  channelValue,
  exchange,
  isObject,
  nonEmptyString,
  outcomeOfAnswer,
  refused,
  timeoutOf,
  TimeoutMsSchema,
  withoutSecrets,
} from './shared.js';

const TWILIO_API = 'https://api.twilio.com';

/**
 * SMS and WhatsApp through Twilio's Messages API (or any API that speaks it): one form-encoded POST per message,
 * Basic auth with the account SID and auth token. `from` is a phone number, or a Messaging Service SID (`MG…`) to
 * let Twilio pick the sender.
 */
export const TwilioConfigSchema = Type.Object(
  {
    account_sid: Type.String({ minLength: 1, maxLength: 64, description: 'the account SID (AC…)' }),
    auth_token: Type.String({ minLength: 1, maxLength: 256, description: 'the auth token (secret)' }),
    from: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'the sender: an E.164 number (+14155550123), or a Messaging Service SID (MG…)',
    }),
    base_url: baseUrl(TWILIO_API),
    timeout_ms: TimeoutMsSchema,
  },
  { additionalProperties: false },
);

function textOf(request: DeliveryRequest): string | undefined {
  const { text, body } = request.content;
  if (nonEmptyString(text)) return text;
  return nonEmptyString(body) ? body : undefined;
}

async function send(
  vendor: VendorConfig,
  request: DeliveryRequest,
  signal: AbortSignal,
  context?: SendContext,
): Promise<DeliveryOutcome> {
  const config = vendor.config;
  const { account_sid: sid, auth_token: token, from } = config;
  if (!nonEmptyString(sid) || !nonEmptyString(token) || !nonEmptyString(from))
    return refused('vendor config needs account_sid, auth_token and from');
  const to = channelValue(request.channelIdentity);
  if (!nonEmptyString(to)) return refused(`the recipient's $${request.channel} entry is not a phone number`);
  const text = textOf(request);
  if (!text) return refused('the rendered content has no text');

  const whatsapp = request.channel === 'whatsapp';
  const address = (number: string) => (whatsapp && !number.startsWith('whatsapp:') ? `whatsapp:${number}` : number);
  const form = new URLSearchParams({ To: address(to), Body: text });
  if (/^MG[0-9a-fA-F]{32}$/.test(from)) form.set('MessagingServiceSid', from);
  else form.set('From', address(from));
  // Twilio posts the message's progress there (src/base/provider-callbacks.ts): delivered, failed, undelivered.
  if (context?.statusCallbackUrl) form.set('StatusCallback', context.statusCallbackUrl);

  const url = `${baseUrlOf(config, TWILIO_API)}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`;
  const deadline = attemptDeadline(signal, timeoutOf(config));
  const result = await exchange(
    url,
    {
      headers: {
        authorization: `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: form.toString(),
    },
    deadline,
  );
  if (!result.ok) return result.outcome;
  const { answer } = result;
  const body = isObject(answer.body) ? answer.body : {};
  const outcome = outcomeOfAnswer(answer, twilioError(body));
  if (outcome.kind === 'sent' && typeof body.sid === 'string') return { ...outcome, providerMessageId: body.sid };
  return outcome;
}

/** Twilio's error body: `{code, message, more_info, status}`. */
function twilioError(body: Record<string, unknown>): string | undefined {
  if (!nonEmptyString(body.message)) return undefined;
  return body.code === undefined ? body.message : `${String(body.code)}: ${body.message}`;
}

/** Fetches the account (GET /2010-04-01/Accounts/{sid}.json): 200 proves the SID and token; sends nothing. */
async function check(vendor: VendorConfig, signal: AbortSignal): Promise<DeliveryOutcome> {
  const config = vendor.config;
  const { account_sid: sid, auth_token: token } = config;
  if (!nonEmptyString(sid) || !nonEmptyString(token)) return refused('vendor config needs account_sid and auth_token');
  const url = `${baseUrlOf(config, TWILIO_API)}/2010-04-01/Accounts/${encodeURIComponent(sid)}.json`;
  const result = await exchange(
    url,
    {
      method: 'GET',
      headers: {
        authorization: `Basic ${Buffer.from(`${sid}:${token}`).toString('base64')}`,
        accept: 'application/json',
      },
    },
    attemptDeadline(signal, timeoutOf(config)),
  );
  if (!result.ok) return result.outcome;
  const body = isObject(result.answer.body) ? result.answer.body : {};
  const outcome = outcomeOfAnswer(result.answer, twilioError(body));
  // The account record is not the caller's business beyond its status (active, suspended, closed).
  if (outcome.kind !== 'sent') return outcome;
  return nonEmptyString(body.status) && body.status !== 'active'
    ? refused(`the account is ${body.status}`)
    : { kind: 'sent', providerResponse: nonEmptyString(body.status) ? { status: body.status } : null };
}

/**
 * Twilio's request signature (https://www.twilio.com/docs/usage/security#validating-requests): HMAC-SHA1 with the
 * auth token over the full URL Twilio called, followed by each POST parameter's name and value in the order of
 * their names, in base64.
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>) {
  const signed = Object.keys(params)
    .sort()
    .reduce((text, name) => text + name + params[name], url);
  return createHmac('sha1', authToken).update(signed, 'utf8').digest('base64');
}

/** Whether `X-Twilio-Signature` is Twilio's for this request (constant-time). */
export const isTwilioSigned = (
  authToken: string,
  url: string,
  params: Record<string, string>,
  signature: string | undefined,
) => typeof signature === 'string' && constantTimeEqual(signature, twilioSignature(authToken, url, params));

/**
 * What a status callback's `MessageStatus` means for the message: Twilio's final outcomes only (`read`, WhatsApp's,
 * implies delivered); `queued`, `sending`, `sent` and the like change nothing.
 */
export function twilioOutcome(status: string): 'delivered' | 'failed' | undefined {
  if (status === 'delivered' || status === 'read') return 'delivered';
  if (status === 'failed' || status === 'undelivered') return 'failed';
  return undefined;
}

export const twilioProvider: Provider = withoutSecrets({
  name: 'twilio',
  channels: ['sms', 'whatsapp'],
  configSchema: TwilioConfigSchema,
  statusCallbacks: true,
  send,
  check,
});
