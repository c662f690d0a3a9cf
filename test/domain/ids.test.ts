import { describe, expect, it } from 'vitest';
import { isPrefixedId, newUlid, prefixedId } from '../../src/ids.js';

describe('ids', () => {
  it('sort in the order they were made, within one millisecond too', () => {
    // Thousands per millisecond: many share their time part, so only the random part can order them.
    const ids = Array.from({ length: 5_000 }, () => newUlid());
    expect(new Set(ids.map((id) => id.slice(0, 10))).size).toBeLessThan(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('make prefixed ids that isPrefixedId recognises, and nothing else', () => {
    const id = prefixedId('ws_apik_');
    expect(isPrefixedId('ws_apik_', id)).toBe(true);
    expect(isPrefixedId('ws_key_', id)).toBe(false);
    expect(isPrefixedId('ws_apik_', `${id}X`)).toBe(false);
    expect(isPrefixedId('ws_apik_', id.toLowerCase())).toBe(false);
  });
});
