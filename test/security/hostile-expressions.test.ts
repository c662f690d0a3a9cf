import { describe, expect, it } from 'vitest';
import { conditionsHold, evaluateExpression } from '../../src/domain/expressions.js';
import { readExpression } from '../../src/domain/paths.js';

/** Branch conditions and paths read data, never what every JavaScript object inherits (issue 25, point 6). */
const empty = () => ({ data: {}, $recipient: {}, $actor: {}, $brand: {}, $workflow: {} });
const INHERITED = ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf', 'isPrototypeOf'];

describe('inherited members are not data', () => {
  for (const name of INHERITED) {
    it(`"${name}" is EMPTY on empty data, in every namespace`, () => {
      for (const variable_ns of ['', '$recipient', '$actor', '$brand', '$tenant', '$workflow']) {
        const at = { variable_ns, variable: `.${name}` };
        expect(evaluateExpression({ ...at, op: 'NON_EMPTY' }, empty())).toBe(false);
        expect(evaluateExpression({ ...at, op: 'EMPTY' }, empty())).toBe(true);
      }
      expect(readExpression(empty(), `.${name}`)).toBeUndefined();
      expect(readExpression(empty(), `$recipient.${name}`)).toBeUndefined();
      expect(readExpression(empty(), `.a.${name}`)).toBeUndefined();
      expect(conditionsHold([{ expression_v1: { variable: `.${name}`, op: 'NON_EMPTY' } }], empty())).toBe(false);
    });
  }

  it('a member the data really has is still read (positive control)', () => {
    const ns = { ...empty(), data: { constructor: 'ship', nested: { toString: 'yes' } } };
    expect(evaluateExpression({ variable: '.constructor', op: '==', value: '"ship"' }, ns)).toBe(true);
    expect(readExpression(ns, '.nested.toString')).toBe('yes');
  });
});
