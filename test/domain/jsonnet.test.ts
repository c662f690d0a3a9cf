import { describe, expect, it } from 'vitest';
import { evaluateJsonnet, isHttpNodeValue, isTrivialJsonnet } from '../../src/domain/jsonnet.js';
import type { Namespaces } from '../../src/domain/paths.js';

/** The trivial JSONNET the nodes evaluate (docs/engine.md, "JSONNET"). */
describe('the trivial JSONNET', () => {
  const namespaces: Namespaces = {
    data: { plan: 'pro', order: { id: 7, items: ['a', 'b'] } },
    $recipient: { distinct_id: 'ann', manager: 'bob', $email: ['ann@example.com'] },
    $actor: { distinct_id: 'zed' },
    $brand: null,
    $workflow: { slug: 'w' },
  };

  it('takes plain JSON as its own value', () => {
    expect(evaluateJsonnet('{"a": [1, "two", null]}', namespaces)).toEqual({ a: [1, 'two', null] });
    expect(evaluateJsonnet(' "text" ', namespaces)).toBe('text');
    expect(evaluateJsonnet('42', namespaces)).toBe(42);
  });

  it('reads paths into the data and the namespaces, with dots or brackets', () => {
    expect(evaluateJsonnet('data.plan', namespaces)).toBe('pro');
    expect(evaluateJsonnet('.order.items.1', namespaces)).toBe('b');
    expect(evaluateJsonnet('data["order"]["id"]', namespaces)).toBe(7);
    expect(evaluateJsonnet('data["$recipient"].manager', namespaces)).toBe('bob');
    expect(evaluateJsonnet("data['$actor'].distinct_id", namespaces)).toBe('zed');
    expect(evaluateJsonnet('$recipient.$email', namespaces)).toEqual(['ann@example.com']);
    expect(evaluateJsonnet('data', namespaces)).toBe(namespaces.data);
    expect(evaluateJsonnet('data.missing', namespaces)).toBeUndefined();
  });

  it('tells what it can evaluate from what needs a full JSONNET', () => {
    for (const text of ['{"a": 1}', 'data.x', 'data["$recipient"].manager_id', '.x.y', '$recipient.plan', 'data'])
      expect(isTrivialJsonnet(text)).toBe(true);
    for (const text of ['{a: 1}', 'data.x + 1', 'std.length(data.items)', 'local x = 1; x', 'plan'])
      expect(isTrivialJsonnet(text)).toBe(false);
  });

  it('lets the HTTP nodes take plain text as written, and nothing that needs a full JSONNET', () => {
    for (const text of [
      '"https://api.example.com/hook"',
      'https://api.example.com/hook?x=1&y=2',
      'Bearer abc.def=',
      'localized',
      'data["$recipient"].id',
      '{"a": 1}',
    ])
      expect(isHttpNodeValue(text)).toBe(true);
    for (const text of [
      '"https://api.example.com/hook?id=" + data["$recipient"].id',
      '"Bearer " + data["$tenant"].api_key',
      '{a: data.x}',
      'std.join(",", data.items)',
      'local x = 1; x',
      "'single'",
    ])
      expect(isHttpNodeValue(text)).toBe(false);
  });
});
