import { describe, expect, it } from 'vitest';
import { CredentialCache } from '../../src/auth/credential-cache.js';

const found =
  (value: string, ...tags: string[]) =>
  async () => ({ value, tags });

describe('credential cache (unit)', () => {
  it('answers from memory once found, and never keeps a failed lookup', async () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 60_000 });
    let loads = 0;
    const load = async () => (loads++, { value: 'ws', tags: ['credential:a'] });
    expect(await cache.lookup('k', load)).toBe('ws');
    expect(await cache.lookup('k', load)).toBe('ws');
    expect(loads).toBe(1);
    expect(await cache.lookup('unknown', async () => undefined)).toBeUndefined();
    expect(await cache.lookup('unknown', found('now valid'))).toBe('now valid');
    expect(cache.size).toBe(2);
  });

  it('keeps at most maxEntries, evicting the least recently used', async () => {
    const cache = new CredentialCache({ maxEntries: 2, ttlMs: 60_000 });
    await cache.lookup('a', found('A'));
    await cache.lookup('b', found('B'));
    await cache.lookup('a', found('not loaded'));
    await cache.lookup('c', found('C'));
    expect(cache.size).toBe(2);
    expect(await cache.lookup('a', found('reloaded'))).toBe('A');
    expect(await cache.lookup('b', found('B again'))).toBe('B again');
  });

  it('drops entries by tag, and expires them after the TTL', async () => {
    let now = 1_000;
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 500, now: () => now });
    await cache.lookup('a', found('A', 'credential:1', 'workspace:7'));
    await cache.lookup('b', found('B', 'credential:2', 'workspace:7'));
    await cache.lookup('c', found('C', 'credential:3', 'workspace:8'));
    cache.invalidate(['credential:1']);
    expect(await cache.lookup('a', found('A2'))).toBe('A2');
    cache.invalidate(['workspace:7']);
    expect(await cache.lookup('b', found('B2'))).toBe('B2');
    expect(await cache.lookup('c', found('C2'))).toBe('C');
    now += 501;
    expect(await cache.lookup('c', found('C3'))).toBe('C3');
  });

  it('does not store an answer whose lookup was in flight when an invalidation happened', async () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 60_000 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inFlight = cache.lookup(
      'k',
      async () => (await gate, { value: 'read before the revoke', tags: ['credential:1'] }),
    );
    cache.invalidate(['credential:1']);
    release();
    expect(await inFlight).toBe('read before the revoke');
    expect(await cache.lookup('k', found('fresh'))).toBe('fresh');
  });

  it('lookupMany: answers cached keys from memory, loads the rest in one call, keeps only what was found', async () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 60_000 });
    const asked: string[][] = [];
    const load = (tags: string[]) => async (missing: string[]) => {
      asked.push(missing);
      return new Map(missing.filter((key) => key !== 'absent').map((key) => [key, { value: key.toUpperCase(), tags }]));
    };
    const first = await cache.lookupMany(['a', 'b', 'absent', 'a'], load(['workflows:1']));
    expect([...first]).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ]);
    expect(asked).toEqual([['a', 'b', 'absent']]);
    const second = await cache.lookupMany(['a', 'c', 'absent'], load(['tenants:1']));
    expect([...second].sort()).toEqual([
      ['a', 'A'],
      ['c', 'C'],
    ]);
    expect(asked[1]).toEqual(['c', 'absent']);
    cache.invalidate(['workflows:1']);
    await cache.lookupMany(['a', 'b', 'c'], load(['workflows:1']));
    expect(asked[2]).toEqual(['a', 'b']);

    // A load in flight when an invalidation happens answers, but is not kept.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inFlight = cache.lookupMany(['d'], async (missing) => {
      await gate;
      return new Map(missing.map((key) => [key, { value: 'stale', tags: ['workflows:2'] }]));
    });
    cache.invalidate(['workflows:2']);
    release();
    expect((await inFlight).get('d')).toBe('stale');
    expect((await cache.lookupMany(['d'], load([]))).get('d')).toBe('D');
  });

  it('looks up every time while bypassed, and starts empty when resumed', async () => {
    const cache = new CredentialCache({ maxEntries: 10, ttlMs: 60_000 });
    await cache.lookup('k', found('old'));
    cache.bypass();
    expect(cache.active).toBe(false);
    expect(await cache.lookup('k', found('looked up'))).toBe('looked up');
    expect(cache.size).toBe(0);
    cache.resume();
    expect(await cache.lookup('k', found('after resume'))).toBe('after resume');
  });

  it('is off with maxEntries 0', async () => {
    const cache = new CredentialCache({ maxEntries: 0, ttlMs: 60_000 });
    await cache.lookup('k', found('A'));
    expect(cache.size).toBe(0);
    expect(cache.active).toBe(false);
  });
});
