import { describe, expect, it } from 'vitest';
import {
  compare,
  conditionsHold,
  evaluateExpression,
  expressionErrors,
  operand,
} from '../../src/domain/expressions.js';
import { parseDuration } from '../../src/domain/durations.js';
import { enterBranch, nextPosition, nodeRefs, settle, treeRunErrors } from '../../src/domain/workflow-tree.js';

const ns = (data: Record<string, unknown>, $recipient: Record<string, unknown> = {}) => ({
  data,
  $recipient,
  $actor: { plan: 'pro' },
  $brand: { tenant_id: 'acme', tier: 'gold' },
  $workflow: { slug: 'w' },
});

describe('expression_v1', () => {
  it('reads values as JSON when they parse, else as plain strings (ours)', () => {
    expect(operand('"pro"')).toBe('pro');
    expect(operand('5')).toBe(5);
    expect(operand('true')).toBe(true);
    expect(operand('pro')).toBe('pro');
  });

  it('implements every operator the OpenAPI lists', () => {
    const cases: [string, unknown, unknown, boolean][] = [
      ['==', 'pro', 'pro', true],
      ['==', 5, '5', true],
      ['!=', 'pro', 'free', true],
      ['>', 10, 9, true],
      ['>', '10', 9, true],
      ['>=', 9, 9, true],
      ['<', 2, 10, true],
      ['<', 'b', 'a', false],
      ['<=', 3, 2, false],
      ['EMPTY', '', undefined, true],
      ['EMPTY', [], undefined, true],
      ['EMPTY', undefined, undefined, true],
      ['EMPTY', 'x', undefined, false],
      ['NON_EMPTY', { a: 1 }, undefined, true],
      ['CONTAINS', 'hello world', 'world', true],
      ['CONTAINS', ['a', 'b'], 'b', true],
      ['NOT_CONTAINS', ['a', 'b'], 'c', true],
      ['ARRAY_INTERSECTS', ['a', 'b'], ['b', 'c'], true],
      ['NOT_ARRAY_INTERSECTS', ['a'], ['b'], true],
      ['DATETIME_EQUALS', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z', true],
      ['DATETIME_LT', '2026-01-01T00:00:00Z', '2026-06-01T00:00:00Z', true],
      ['DATETIME_GT', '2026-01-01T00:00:00Z', '2026-06-01T00:00:00Z', false],
      ['DATETIME_GT', 'not a date', '2026-06-01T00:00:00Z', false],
    ];
    for (const [op, left, right, expected] of cases)
      expect(compare(op, left, right), `${String(left)} ${op} ${String(right)}`).toBe(expected);
  });

  it('combines with AND/OR, nests, and reads every namespace', () => {
    const expression = {
      op: 'AND',
      args: [
        { variable_ns: '', variable: 'order.total', op: '>', value: '100' },
        {
          op: 'OR',
          args: [
            { variable_ns: '$recipient', variable: 'plan', op: '==', value: '"pro"' },
            { variable_ns: '$brand', variable: 'tier', op: '==', value: 'gold' },
          ],
        },
        { variable_ns: '$actor', variable: 'plan', op: '==', value: 'pro' },
      ],
    };
    expect(evaluateExpression(expression, ns({ order: { total: 120 } }))).toBe(true);
    expect(evaluateExpression(expression, ns({ order: { total: 80 } }))).toBe(false);
    expect(conditionsHold([], ns({}))).toBe(true);
    expect(conditionsHold([{ type: 'expression_v1', expression_v1: expression }], ns({ order: { total: 1 } }))).toBe(
      false,
    );
  });

  it('names what is wrong in an expression', () => {
    expect(expressionErrors({ op: 'AND', args: [{ variable: 'x', op: 'LIKE', value: '1' }] }, 'c')).toEqual([
      expect.stringContaining("c.args[0].op 'LIKE' is not one of"),
    ]);
    expect(expressionErrors({ op: 'XOR', args: [] }, 'c')).toEqual(['c.op must be AND or OR']);
  });
});

describe('durations and the tree', () => {
  it('parses XdXhXmXs with any part optional, and seconds as numbers', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('00d00h01m00s')).toBe(60_000);
    expect(parseDuration('1d2h30m10s')).toBe(((24 + 2) * 3600 + 30 * 60 + 10) * 1000);
    expect(parseDuration(90)).toBe(90_000);
    expect(parseDuration('soon')).toBeUndefined();
  });

  const tree = {
    nodes: [
      { node_type: 'send_inbox', template: 'a' },
      {
        node_type: 'branch',
        branches: [
          { name: 'x', conditions: [], nodes: [{ node_type: 'send_inbox', template: 'b' }] },
          { name: 'y', is_default: true, nodes: [] },
        ],
      },
      { node_type: 'send_inbox', template: 'c' },
    ],
  };

  it('numbers node refs per type depth-first and walks in and out of branches', () => {
    expect(Object.fromEntries(nodeRefs(tree))).toEqual({
      '0': 'send_inbox_1',
      '1': 'branch_1',
      '1.0.0': 'send_inbox_2',
      '2': 'send_inbox_3',
    });
    expect(enterBranch(tree, [1], 0)).toEqual([1, 0, 0]);
    expect(nextPosition(tree, [1, 0, 0])).toEqual([2]);
    expect(enterBranch(tree, [1], 1)).toEqual([2]);
    expect(nextPosition(tree, [2])).toBeNull();
    expect(settle(tree, [0])).toEqual([0]);
  });

  it('refuses at commit the trees the engine cannot run, naming each node’s path', () => {
    expect(
      treeRunErrors({
        nodes: [
          { node_type: 'send_email' },
          { node_type: 'made_up' },
          { node_type: 'delay', delay_type: 'fixed', duration: 'soon' },
          {
            node_type: 'branch',
            branches: [
              {
                conditions: [{ expression_v1: { op: 'AND', args: [{ variable: 'x', op: '~', value: '1' }] } }],
                nodes: [{ node_type: 'send_sms' }],
              },
              { is_default: true, nodes: [] },
            ],
          },
          { node_type: 'httpapi_webhook', http_method: 'POST', url: 'ftp://x' },
        ],
      }),
    ).toEqual([
      'tree.nodes[0] (send_email): template must be a template slug (a-z, 0-9, - and _)',
      "tree.nodes[1] (made_up): node type 'made_up' is not supported by this engine",
      'tree.nodes[2] (delay): duration must be a duration like 30s, 1h30m or 1d2h30m10s',
      expect.stringContaining("tree.nodes[3].branches[0].conditions[0].expression_v1.args[0].op '~' is not one of"),
      'tree.nodes[3].branches[0].nodes[0] (send_sms): template must be a template slug (a-z, 0-9, - and _)',
      'tree.nodes[4] (httpapi_webhook): url must be an http(s) URL',
    ]);
    expect(treeRunErrors({ nodes: [{ node_type: 'send_email', properties: { template: 'welcome' } }] })).toEqual([]);
  });
});
