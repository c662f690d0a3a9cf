import { MASK, SECRET_CONFIG_KEYS } from '../schemas/vendors.js';
import { isObject } from './values.js';

/** Vendor config secrets (docs/spec/engine.md §7): sealed at rest, masked on reads, opened for delivery. */

export interface Sealer {
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

/** An incoming webhook's URL is its credential: whoever has it can post to the channel. */
const PROVIDER_SECRET_KEYS: Record<string, string[]> = { incoming_webhook: ['url'] };

const secretTest = (provider: string) => (key: string) =>
  SECRET_CONFIG_KEYS.includes(key) || (PROVIDER_SECRET_KEYS[provider] ?? []).includes(key);

/**
 * Config maps whose every value may be a secret: a webhook's extra headers carry `authorization`
 * and API keys (issue 25), so each value is sealed and masked, the header names stay readable.
 */
const PROVIDER_SECRET_MAPS: Record<string, string[]> = { webhook: ['headers'] };

const secretMapTest = (provider: string) => (key: string) => (PROVIDER_SECRET_MAPS[provider] ?? []).includes(key);

const seal = (value: unknown, box: Sealer) => ({
  $sealed: box.encrypt(typeof value === 'string' ? value : JSON.stringify(value)),
});

/**
 * A change of config over the stored one (opened): a secret sent as the mask keeps its stored value,
 * and so does an entry of a secret map sent as the mask (a PATCH of a read body).
 */
export function mergeConfig(provider: string, previous: Record<string, unknown>, change: Record<string, unknown>) {
  const isMap = secretMapTest(provider);
  const merged: Record<string, unknown> = { ...previous };
  for (const [key, value] of Object.entries(change)) {
    if (value === MASK) continue;
    const before = previous[key];
    merged[key] =
      isMap(key) && isObject(value)
        ? Object.fromEntries(
            Object.entries(value).flatMap(([name, entry]) =>
              entry !== MASK ? [[name, entry]] : isObject(before) && name in before ? [[name, before[name]]] : [],
            ),
          )
        : value;
  }
  return merged;
}

/** Seals each secret key and each value of a secret map; a secret sent as the mask keeps the value `previous` holds. */
export function sealConfig(
  provider: string,
  config: Record<string, unknown>,
  box: Sealer,
  previous: Record<string, unknown> = {},
) {
  const isSecret = secretTest(provider);
  const isMap = secretMapTest(provider);
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      if (isMap(key) && isObject(value))
        return [key, Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, seal(entry, box)]))];
      if (!isSecret(key) || value === null || value === undefined) return [key, value];
      if (value === MASK && key in previous) return [key, previous[key]];
      return [key, seal(value, box)];
    }),
  );
}

const isSealed = (value: unknown): value is { $sealed: string } =>
  typeof value === 'object' && value !== null && typeof (value as { $sealed?: unknown }).$sealed === 'string';

export function maskConfig(provider: string, config: Record<string, unknown>) {
  const isSecret = secretTest(provider);
  const isMap = secretMapTest(provider);
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [
      key,
      isMap(key) && isObject(value)
        ? Object.fromEntries(Object.keys(value).map((name) => [name, MASK]))
        : isSecret(key) && value !== null
          ? MASK
          : value,
    ]),
  );
}

const openValue = (value: unknown, box: Sealer) => (isSealed(value) ? box.decrypt(value.$sealed) : value);

/** The config with every sealed value opened, a secret map's entries among them (one level down). */
export const openConfig = (config: Record<string, unknown>, box: Sealer) =>
  Object.fromEntries(
    Object.entries(config).map(([key, value]) => [
      key,
      isObject(value) && !isSealed(value)
        ? Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, openValue(entry, box)]))
        : openValue(value, box),
    ]),
  );
