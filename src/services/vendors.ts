import { Value } from '@sinclair/typebox/value';
import type { ProviderRegistry } from '../channels/registry.js';
import type { Db } from '../db/database.js';
import { openConfig, sealConfig, type Sealer } from '../domain/vendor-secrets.js';
import { badRequest, notFound } from '../errors.js';
import { newUlid } from '../ids.js';
import { clearDefault, findVendor, insertVendor, updateVendor } from '../repositories/vendors.js';
import { MASK } from '../schemas/vendors.js';

export { providers } from '../channels/registry.js';
export { deleteVendor, findVendor, listVendors } from '../repositories/vendors.js';

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
  trx: Db,
  box: Sealer,
  registry: ProviderRegistry,
  workspaceId: number,
  input: {
    channel: string;
    provider: string;
    nickname?: string | null;
    is_default?: boolean;
    is_active?: boolean;
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
    config: sealConfig(input.provider, input.config, box),
  });
}

export async function changeVendor(
  trx: Db,
  box: Sealer,
  registry: ProviderRegistry,
  workspaceId: number,
  id: string,
  input: { nickname?: string | null; is_default?: boolean; is_active?: boolean; config?: Record<string, unknown> },
) {
  const row = await findVendor(trx, workspaceId, id, { lock: true });
  if (!row) throw vendorNotFound(id);
  let config: Record<string, unknown> | undefined;
  if (input.config) {
    const previous = openConfig(row.config, box);
    const merged: Record<string, unknown> = { ...previous };
    for (const [key, value] of Object.entries(input.config)) if (value !== MASK) merged[key] = value;
    checkConfig(registry, row.provider, row.channel, merged);
    config = sealConfig(row.provider, merged, box);
  }
  if (input.is_default) await clearDefault(trx, workspaceId, row.channel, id);
  return updateVendor(trx, workspaceId, id, {
    ...(input.nickname !== undefined ? { nickname: input.nickname } : {}),
    ...(input.is_default !== undefined ? { is_default: input.is_default } : {}),
    ...(input.is_active !== undefined ? { is_active: input.is_active } : {}),
    ...(config ? { config } : {}),
  });
}
