import { MASK, SECRET_CONFIG_KEYS } from '../schemas/vendors.js';

/** Vendor config secrets (docs/spec/engine.md §7): sealed at rest, masked on reads, opened for delivery. */

export interface Sealer {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

/** An incoming webhook's URL is its credential: whoever has it can post to the channel. */
const PROVIDER_SECRET_KEYS: Record<string, string[]> = { incoming_webhook: ['url'] };

const secretTest = (provider: string) => (key: string) =>
  SECRET_CONFIG_KEYS.includes(key) || (PROVIDER_SECRET_KEYS[provider] ?? []).includes(key);

/** Seals each secret key; a secret sent as the mask keeps the value `previous` holds (a PATCH of a read body). */
export function sealConfig(
  provider: string,
  config: Record<string, unknown>,
  box: Sealer,
  previous: Record<string, unknown> = {},
) {
  const isSecret = secretTest(provider);
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      if (!isSecret(key) || value === null || value === undefined) return [key, value];
      if (value === MASK && key in previous) return [key, previous[key]];
      return [key, { $sealed: box.encrypt(typeof value === 'string' ? value : JSON.stringify(value)) }];
    }),
  );
}

const isSealed = (value: unknown): value is { $sealed: string } =>
  typeof value === 'object' && value !== null && typeof (value as { $sealed?: unknown }).$sealed === 'string';

export function maskConfig(provider: string, config: Record<string, unknown>) {
  const isSecret = secretTest(provider);
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key, isSecret(key) && value !== null ? MASK : value]),
  );
}

export const openConfig = (config: Record<string, unknown>, box: Sealer) =>
  Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key, isSealed(value) ? box.decrypt(value.$sealed) : value]),
  );
