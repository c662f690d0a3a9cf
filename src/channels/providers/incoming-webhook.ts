import { Type } from '@sinclair/typebox';
import { DEFAULT_OUTBOUND } from '../outbound.js';
import type { DeliveryOutcome, DeliveryRequest, Provider, SendContext, VendorConfig } from '../provider.js';
import {
  attemptDeadline,
  channelValue,
  exchange,
  httpUrl,
  isObject,
  nonEmptyString,
  outcomeOfAnswer,
  refused,
  timeoutOf,
  TimeoutMsSchema,
  withoutSecrets,
} from './shared.js';

/**
 * Slack and Microsoft Teams incoming webhooks: one JSON POST to a URL that is itself the credential. The URL comes
 * from the recipient's channel entry (`{"incoming_webhook": {"url": …}}`, the way a user or an object such as a
 * team names its own channel) or, when the entry has none, from the vendor's `url` (one fixed channel, such as an
 * operations room). The URL is absolute, so it is also what tests point at a local server: there is no `base_url`.
 */
export const IncomingWebhookConfigSchema = Type.Object(
  {
    url: Type.Optional(
      httpUrl("the webhook URL used when the recipient's entry has none (secret: it is the credential)"),
    ),
    timeout_ms: TimeoutMsSchema,
  },
  { additionalProperties: false },
);

/** The URL to post to, and whether the recipient chose it (then the outbound policy applies; the vendor's is the operator's). */
function webhookUrl(
  vendor: VendorConfig,
  request: DeliveryRequest,
): { url: string; chosenByRecipient: boolean } | undefined {
  const identity = channelValue(request.channelIdentity);
  if (isObject(identity) && isObject(identity.incoming_webhook) && nonEmptyString(identity.incoming_webhook.url))
    return { url: identity.incoming_webhook.url, chosenByRecipient: true };
  return nonEmptyString(vendor.config.url) ? { url: vendor.config.url, chosenByRecipient: false } : undefined;
}

/** Slack takes `{text}` (and Block Kit `blocks` when the template made them). */
function slackBody(content: Record<string, unknown>, text: string) {
  return Array.isArray(content.blocks) ? { text, blocks: content.blocks } : { text };
}

/**
 * Teams takes a message with one Adaptive Card: both the Office 365 connector webhooks and the Workflows ("Post to a
 * channel when a webhook request is received") webhooks accept that shape, and its TextBlock renders Markdown.
 */
function teamsBody(text: string) {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [{ type: 'TextBlock', text, wrap: true }],
        },
      },
    ],
  };
}

async function send(
  vendor: VendorConfig,
  request: DeliveryRequest,
  signal: AbortSignal,
  context?: SendContext,
): Promise<DeliveryOutcome> {
  const destination = webhookUrl(vendor, request);
  if (!destination)
    return refused(`the recipient's $${request.channel} entry has no incoming_webhook.url and the vendor no url`);
  const { url } = destination;
  if (!/^https?:\/\/\S+$/.test(url)) return refused('the incoming webhook URL is not an http(s) URL');
  const text = request.content.text;
  if (!nonEmptyString(text)) return refused('the rendered content has no text');
  const body = request.channel === 'ms_teams' ? teamsBody(text) : slackBody(request.content, text);

  const deadline = attemptDeadline(signal, timeoutOf(vendor.config));
  const result = await exchange(
    url,
    { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    deadline,
    destination.chosenByRecipient ? (context?.outbound ?? DEFAULT_OUTBOUND) : undefined,
  );
  if (!result.ok) return result.outcome;
  const { answer } = result;
  // Office 365 connectors answer 200 even when Teams throttled or refused the card, with the real status in the text.
  const hidden = typeof answer.body === 'string' ? /HTTP error (\d{3})/.exec(answer.body) : null;
  if (request.channel === 'ms_teams' && answer.status < 300 && hidden)
    return outcomeOfAnswer({ ...answer, status: Number(hidden[1]) }, answer.body as string);
  // Slack explains a refusal in plain text: invalid_payload, no_service (webhook revoked), channel_is_archived, ….
  const detail = typeof answer.body === 'string' && answer.body.length <= 200 ? answer.body : undefined;
  return outcomeOfAnswer(answer, detail);
}

export const incomingWebhookProvider: Provider = withoutSecrets(
  {
    name: 'incoming_webhook',
    channels: ['slack', 'ms_teams'],
    configSchema: IncomingWebhookConfigSchema,
    send,
  },
  ['url'],
);
