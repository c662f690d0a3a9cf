import { Type } from '@sinclair/typebox';
import type { DeliveryOutcome, DeliveryRequest, Provider, VendorConfig } from '../provider.js';
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

const SLACK_API = 'https://slack.com/api';

/**
 * Slack through the workspace's Slack app (its bot token): the recipient's `$slack` entry names who to
 * reach — `{channel_id}`, `{user_id}` (a direct message from the app) or `{email}` (looked up with
 * users.lookupByEmail) — and may carry an `access_token` of its own (another Slack workspace's bot),
 * which then wins over the vendor's. Calls the Web API (chat.postMessage), whose base URL tests point
 * at a local server.
 */
export const SlackConfigSchema = Type.Object(
  {
    access_token: Type.String({
      minLength: 1,
      maxLength: 512,
      pattern: '^xox',
      description: "the Slack app's bot token, xoxb-… (secret), with chat:write and users:read.email",
    }),
    base_url: baseUrl(SLACK_API),
    timeout_ms: TimeoutMsSchema,
  },
  { additionalProperties: false },
);

/** Slack's transient errors (answered 200 with ok: false); any other error is permanent. */
const TRANSIENT = new Set(['internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'ratelimited']);

type Call = { ok: true; body: Record<string, unknown> } | { ok: false; outcome: DeliveryOutcome };

/** One Web API method, JSON in and out: an HTTP failure or `ok: false` is an outcome naming Slack's error. */
async function callSlack(
  config: Record<string, unknown>,
  token: string,
  method: string,
  payload: Record<string, unknown>,
  signal: AbortSignal,
): Promise<Call> {
  const result = await exchange(
    `${baseUrlOf(config, SLACK_API)}/${method}`,
    {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(payload),
    },
    attemptDeadline(signal, timeoutOf(config)),
  );
  if (!result.ok) return result;
  const { answer } = result;
  const body = isObject(answer.body) ? answer.body : {};
  if (answer.status >= 300) return { ok: false, outcome: outcomeOfAnswer(answer, String(body.error ?? '')) };
  if (body.ok === true) return { ok: true, body };
  const error = nonEmptyString(body.error) ? body.error : 'unknown_error';
  const reason = `slack ${method} answered ${error}`;
  return {
    ok: false,
    outcome: TRANSIENT.has(error)
      ? { kind: 'retry', reason, providerResponse: body }
      : { kind: 'failed', reason, providerResponse: body },
  };
}

async function send(vendor: VendorConfig, request: DeliveryRequest, signal: AbortSignal): Promise<DeliveryOutcome> {
  const entry = channelValue(request.channelIdentity);
  if (!isObject(entry)) return refused("the recipient's $slack entry is not an object");
  const token = nonEmptyString(entry.access_token) ? entry.access_token : vendor.config.access_token;
  if (!nonEmptyString(token)) return refused('neither the $slack entry nor the vendor has an access_token');
  const text = request.content.text;
  if (!nonEmptyString(text)) return refused('the rendered content has no text');

  let channel = nonEmptyString(entry.channel_id)
    ? entry.channel_id
    : nonEmptyString(entry.user_id)
      ? entry.user_id
      : undefined;
  if (!channel && nonEmptyString(entry.email)) {
    const found = await callSlack(vendor.config, token, 'users.lookupByEmail', { email: entry.email }, signal);
    if (!found.ok) return found.outcome;
    const user = isObject(found.body.user) ? found.body.user : {};
    if (!nonEmptyString(user.id)) return refused('slack users.lookupByEmail answered no user id');
    channel = user.id;
  }
  if (!channel) return refused("the recipient's $slack entry names no channel_id, user_id or email");
  const message = Array.isArray(request.content.blocks)
    ? { channel, text, blocks: request.content.blocks }
    : { channel, text };
  const posted = await callSlack(vendor.config, token, 'chat.postMessage', message, signal);
  if (!posted.ok) return posted.outcome;
  const ts = posted.body.ts;
  return {
    kind: 'sent',
    providerResponse: { channel: posted.body.channel, ts },
    ...(nonEmptyString(ts) ? { providerMessageId: ts } : {}),
  };
}

/** auth.test: proves the bot token without posting anything. */
async function check(vendor: VendorConfig, signal: AbortSignal): Promise<DeliveryOutcome> {
  const token = vendor.config.access_token;
  if (!nonEmptyString(token)) return refused('vendor config needs access_token');
  const answer = await callSlack(vendor.config, token, 'auth.test', {}, signal);
  return answer.ok
    ? { kind: 'sent', providerResponse: { team: answer.body.team, user: answer.body.user } }
    : answer.outcome;
}

export const slackProvider: Provider = withoutSecrets({
  name: 'slack',
  channels: ['slack'],
  configSchema: SlackConfigSchema,
  send,
  check,
});
