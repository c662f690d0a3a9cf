import { describe, expect, it } from 'vitest';
import { applyOperations, applyUpsert, sameState, type EntityState } from '../../src/domain/entity-operations.js';

const empty = (): EntityState => ({ properties: {}, channels: {} });
const active = (value: string | Record<string, unknown>, id_provider?: string) => ({
  value,
  status: 'active',
  perma_status: 'active',
  ...(id_provider ? { id_provider } : {}),
});

describe('entity operations (pure)', () => {
  it('never mutates the state it is given', () => {
    const state: EntityState = { properties: { tags: ['a'], n: 1 }, channels: { $email: [active('a@x.com')] } };
    const copy = structuredClone(state);
    const next = applyOperations(
      state,
      [{ $append: { tags: 'b', $email: 'b@x.com' }, $add: { n: 1 } }, { $unset: ['$email'] }],
      'operations',
    );
    expect(state).toEqual(copy);
    expect(next).toEqual({ properties: { tags: ['a', 'b'], n: 2 }, channels: {} });
  });

  it('removes a channel entry, and the channel key once empty; removing an unknown value is a no-op', () => {
    const state = applyUpsert(empty(), { $sms: ['+14155550123', '+14155550124'] });
    const once = applyOperations(state, [{ $remove: { $sms: '+1 415 555 0123' } }], 'operations');
    expect(once.channels).toEqual({ $sms: [active('+14155550124')] });
    const twice = applyOperations(
      once,
      [{ $remove: { $sms: '+14155550124', $email: 'never@x.com' } }, { $remove: { $sms: 'garbage' } }],
      'operations',
    );
    expect(twice.channels).toEqual({});
  });

  it('gives push tokens of a flat upsert the body $id_provider, or the channel default', () => {
    expect(applyUpsert(empty(), { $androidpush: ['t1'], $id_provider: 'oppo' }).channels).toEqual({
      $androidpush: [active('t1', 'oppo')],
    });
    expect(applyUpsert(empty(), { $androidpush: 't1', $inbox: 'i1' }).channels).toEqual({
      $androidpush: [active('t1', 'fcm')],
      $inbox: [active('i1', 'suprsend')],
    });
  });

  it('treats a $remove of a list value and $set_once of an existing key as no change', () => {
    const state: EntityState = { properties: { tags: ['a'], once: 1 }, channels: {} };
    expect(
      sameState(state, applyOperations(state, [{ $remove: { tags: 'z' }, $set_once: { once: 2 } }], 'operations')),
    ).toBe(true);
    expect(sameState(state, applyOperations(state, [{ $set: { once: 2 } }], 'operations'))).toBe(false);
  });

  it('names the location of the failing operation', () => {
    expect(() => applyOperations(empty(), [{ $set: {} }, { $unset: 5 }], '[2].$user_operations')).toThrow(
      '[2].$user_operations[1].$unset: must be a list of property names',
    );
    expect(() => applyOperations(empty(), 'nope', 'operations')).toThrow('operations: must be a list of operations');
  });
});
