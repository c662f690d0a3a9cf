import { Value } from '@sinclair/typebox/value';
import type { DeliveryChannel, DeliveryOutcome, DeliveryRequest, SendContext } from '../channels/provider.js';
import type { ProviderRegistry } from '../channels/registry.js';
import type { Db, Trx } from '../db/database.js';
import { mergeConfig, openConfig, sealConfig, type Sealer } from '../domain/vendor-secrets.js';
import { badRequest, notFound } from '../errors.js';
import { newUlid } from '../ids.js';
import { clearDefault, findVendor, insertVendor, updateVendor } from '../repositories/vendors.js';

export { providers } from '../channels/registry.js';

/** Vendors (docs/spec/engine.md §7): config checked by the provider's own schema, secrets sealed. */

export const vendorNotFound = (_id: string) => notFound('vendor not found');

function checkConfig(
  registry: ProviderRegistry,
  providerName: string,
  channel: string,
  config: Record<string, unknown>,
) {
  const provider = registry.get(providerName);
  if (!provider)
    throw badRequest(`provider '${providerName}' is not one of ${[...registry.keys()].join(', ')}`, {
      provider: 'is not a known provider',
    });
  if (!(provider.channels as readonly string[]).includes(channel))
    throw badRequest(`provider '${providerName}' does not deliver on ${channel}`, {
      channel: 'is not served by the provider',
    });
  const error = Value.Errors(provider.configSchema, config).First();
  if (error) {
    const at = `config${error.path.replace(/\//g, '.')}`;
    throw badRequest(`${at} ${error.message.toLowerCase()}`, { [at]: error.message });
  }
}

export async function createVendor(
  trx: Trx,
  box: Sealer,
  registry: ProviderRegistry,
  workspaceId: number,
  input: {
    channel: string;
    provider: string;
    nickname?: string | null;
    is_default?: boolean;
    is_active?: boolean;
    priority?: number;
    fallback_after_seconds?: number;
    config: Record<string, unknown>;
  },
) {
  checkConfig(registry, input.provider, input.channel, input.config);
  const id = `vnd_${newUlid()}`;
  if (input.is_default) await clearDefault(trx, workspaceId, input.channel, id);
  return insertVendor(trx, {
    id,
    workspace_id: workspaceId,
    channel: input.channel,
    provider: input.provider,
    nickname: input.nickname ?? null,
    is_default: input.is_default ?? false,
    is_active: input.is_active ?? true,
    ...(input.priority !== undefined ? { priority: input.priority } : {}),
    ...(input.fallback_after_seconds !== undefined ? { fallback_after_seconds: input.fallback_after_seconds } : {}),
    config: sealConfig(input.provider, input.config, box),
  });
}

export async function changeVendor(
  trx: Trx,
  box: Sealer,
  registry: ProviderRegistry,
  workspaceId: number,
  id: string,
  input: {
    nickname?: string | null;
    is_default?: boolean;
    is_active?: boolean;
    priority?: number;
    fallback_after_seconds?: number;
    config?: Record<string, unknown>;
  },
) {
  const row = await findVendor(trx, workspaceId, id, { lock: true });
  if (!row) throw vendorNotFound(id);
  let config: Record<string, unknown> | undefined;
  if (input.config) {
    const previous = openConfig(row.config, box);
    const merged = mergeConfig(row.provider, previous, input.config);
    checkConfig(registry, row.provider, row.channel, merged);
    config = sealConfig(row.provider, merged, box);
  }
  if (input.is_default) await clearDefault(trx, workspaceId, row.channel, id);
  return updateVendor(trx, workspaceId, id, {
    ...(input.nickname !== undefined ? { nickname: input.nickname } : {}),
    ...(input.is_default !== undefined ? { is_default: input.is_default } : {}),
    ...(input.is_active !== undefined ? { is_active: input.is_active } : {}),
    ...(input.priority !== undefined ? { priority: input.priority } : {}),
    ...(input.fallback_after_seconds !== undefined ? { fallback_after_seconds: input.fallback_after_seconds } : {}),
    ...(config ? { config } : {}),
  });
}

const TEST_TEXT = 'Herald test message';

/** What a test message is: one content every provider finds its fields in (subject, title, text, body). */
function testRequest(row: { id: string; channel: string; nickname: string | null }, to: unknown): DeliveryRequest {
  const text = `A test message from Herald for vendor ${row.nickname ?? row.id}.`;
  return {
    messageId: `test_${newUlid()}`,
    executionId: 'vendor_test',
    channel: row.channel as DeliveryChannel,
    recipient: { distinct_id: '$vendor_test' },
    channelIdentity: to ?? null,
    tenantId: 'default',
    workflow: { slug: 'vendor-test', version_id: '0', node_ref: 'test' },
    content: { subject: TEST_TEXT, title: TEST_TEXT, header: TEST_TEXT, text, body: text },
  };
}

/**
 * The vendor `test` action (docs/channels.md, "Testing a vendor", ours): with `to`, one test message to that
 * address; without, the provider's connection check, or a test message to the destination its config names when it
 * has no check (webhook, incoming_webhook). A misconfiguration is the answer, never an error of the request.
 */
export async function testVendor(
  db: Db,
  box: Sealer,
  registry: ProviderRegistry,
  context: SendContext,
  workspaceId: number,
  id: string,
  input: { to?: unknown },
  signal: AbortSignal,
) {
  const row = await findVendor(db, workspaceId, id);
  if (!row) throw vendorNotFound(id);
  const provider = registry.get(row.provider);
  const mode: 'check' | 'message' = input.to === undefined && provider?.check ? 'check' : 'message';
  const startedAt = Date.now();
  let outcome: DeliveryOutcome;
  try {
    if (!provider) throw new Error(`provider '${row.provider}' is not one Herald knows`);
    const vendor = { id: row.id, provider: row.provider, nickname: row.nickname, config: openConfig(row.config, box) };
    outcome =
      mode === 'check' && provider.check
        ? await provider.check(vendor, signal)
        : await provider.send(vendor, testRequest(row, input.to), signal, context);
  } catch (error) {
    // A stored config that no longer opens (SECRET_KEY changed) or a provider's fault: the answer, not a 500.
    outcome = { kind: 'failed', reason: error instanceof Error ? error.message : String(error) };
  }
  return {
    ok: outcome.kind === 'sent',
    mode,
    error: outcome.kind === 'sent' ? null : outcome.reason,
    retryable: outcome.kind === 'retry',
    provider_response: outcome.providerResponse ?? null,
    duration_ms: Date.now() - startedAt,
  };
}
