import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { deliveryProviders } from '../../../src/channels/providers/index.js';
import { webhookProvider } from '../../../src/channels/providers/webhook.js';

// The options the app gives Fastify's Ajv (src/app.ts), strict so a keyword Ajv does not know fails here.
const ajv = new Ajv({ strict: true, coerceTypes: 'array', useDefaults: true, allErrors: true });
const providers = new Map(deliveryProviders.map((provider) => [provider.name, provider]));
// docs/channels.md documents the generic `webhook` (which the registry adds) beside them.
const documented = new Map([...providers, [webhookProvider.name, webhookProvider]]);
const validators = new Map(
  [...documented.values()].map((provider) => [provider.name, ajv.compile(provider.configSchema)]),
);

/** Validates a copy of the config; answers the Ajv findings as `field: keyword` strings. */
function findings(provider: string, config: Record<string, unknown>): string[] {
  const validate = validators.get(provider)!;
  if (validate(structuredClone(config))) return [];
  return (validate.errors ?? []).map((error) => {
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    const field = [error.instancePath.slice(1), params.missingProperty ?? params.additionalProperty]
      .filter(Boolean)
      .join('.');
    return `${field}: ${error.keyword}`;
  });
}

const examples = [...readFileSync('docs/channels.md', 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map(
  (match) => JSON.parse(match[1]!) as { channel: string; provider: string; config: Record<string, unknown> },
);

describe('provider config schemas', () => {
  it('lists each provider once, covering every outside channel', () => {
    expect([...providers.keys()].sort()).toEqual([
      'apns',
      'fcm',
      'incoming_webhook',
      'slack',
      'smtp',
      'twilio',
      'vapid',
    ]);
    expect(deliveryProviders.flatMap((provider) => provider.channels).sort()).toEqual(
      ['androidpush', 'email', 'iospush', 'ms_teams', 'slack', 'slack', 'sms', 'webpush', 'whatsapp'].sort(),
    );
  });

  it('accepts every copy-paste example of docs/channels.md, on a channel its provider serves', () => {
    expect(new Set(examples.map((example) => example.provider))).toEqual(new Set(documented.keys()));
    for (const example of examples) {
      expect(documented.get(example.provider)!.channels, example.provider).toContain(example.channel);
      expect(findings(example.provider, example.config), example.provider).toEqual([]);
    }
  });

  it('names each missing required key', () => {
    expect(findings('smtp', {})).toEqual(['host: required', 'from_email: required']);
    expect(findings('twilio', {})).toEqual(['account_sid: required', 'auth_token: required', 'from: required']);
    expect(findings('vapid', {})).toEqual(['public_key: required', 'private_key: required', 'subject: required']);
    expect(findings('fcm', {})).toEqual(['project_id: required', 'client_email: required', 'private_key: required']);
    expect(findings('apns', {})).toEqual([
      'private_key: required',
      'key_id: required',
      'team_id: required',
      'bundle_id: required',
    ]);
    expect(findings('incoming_webhook', {})).toEqual([]);
  });

  it('refuses unknown keys, except in the service account JSON fcm takes whole', () => {
    const smtp = { host: 'smtp.example.com', from_email: 'a@example.com' };
    expect(findings('smtp', { ...smtp, pasword: 'x' })).toEqual(['pasword: additionalProperties']);
    expect(findings('incoming_webhook', { webhook: 'https://hooks.slack.com/x' })).toEqual([
      'webhook: additionalProperties',
    ]);
    const fcm = { project_id: 'p', client_email: 'e@p.iam.gserviceaccount.com', private_key: 'k' };
    expect(findings('fcm', { ...fcm, type: 'service_account', client_id: '1' })).toEqual([]);
  });

  it('checks the values a provider cannot work with', () => {
    const smtp = { host: 'smtp.example.com', from_email: 'a@example.com' };
    expect(findings('smtp', { ...smtp, username: 'u' })).toEqual(['password: dependencies']);
    expect(findings('smtp', { ...smtp, port: 70000 })).toEqual(['port: maximum']);
    expect(findings('smtp', { ...smtp, from_email: 'not an address' })).toEqual(['from_email: pattern']);
    expect(findings('smtp', { ...smtp, timeout_ms: 5 })).toEqual(['timeout_ms: minimum']);
    const vapid = { public_key: 'p', private_key: 'k' };
    expect(findings('vapid', { ...vapid, subject: 'ops@example.com' })).toEqual(['subject: pattern']);
    expect(findings('vapid', { ...vapid, subject: 'mailto:ops@example.com', urgency: 'asap' })).toContain(
      'urgency: anyOf',
    );
    const twilio = { account_sid: 'AC1', auth_token: 't', from: '+14155550100' };
    expect(findings('twilio', { ...twilio, base_url: 'api.twilio.com' })).toEqual(['base_url: pattern']);
    expect(findings('incoming_webhook', { url: 'hooks.slack.com/services/x' })).toEqual(['url: pattern']);
  });

  it('fills timeout_ms with its default', () => {
    const config: Record<string, unknown> = { host: 'smtp.example.com', from_email: 'a@example.com' };
    expect(validators.get('smtp')!(config)).toBe(true);
    expect(config.timeout_ms).toBe(10_000);
  });
});
