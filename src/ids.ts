import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

const pool = new Uint8Array(4096);
let offset = pool.length;

/** Crypto-random bytes handed out from a pooled buffer, as the [0, 1) numbers ulid expects. */
function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return (pool[offset++] as number) / 256;
}

/**
 * A ULID whose random part comes from the pool: the ulid package's default asks the system for
 * one byte at a time (16 calls per id), which was 7% of a user GET's CPU (see BENCHMARKS.md).
 * Monotonic: ids made in one millisecond still sort in the order they were made, so "oldest
 * first" listings (created_at, then id) hold where the clock ties, as PGlite's does to the ms.
 */
const monotonicUlid = monotonicFactory(pooledRandom);
export const newUlid = (): string => monotonicUlid();

/** A prefixed identifier: `ws_apik_` + 26-character ULID, and the like. */
export const prefixedId = (prefix: string) => `${prefix}${newUlid()}`;

/** The 26 Crockford base32 characters newUlid makes. */
export const ULID_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const ULID = new RegExp(`^${ULID_PATTERN}$`);
/** Whether an id has the shape prefixedId makes; anything else cannot name a record. */
export const isPrefixedId = (prefix: string, id: string) => id.startsWith(prefix) && ULID.test(id.slice(prefix.length));
