import { isObject } from './values.js';

/**
 * jq-style paths into a run's data and namespaces (docs/spec/engine.md §3, ours): `.a.b` reads the
 * trigger's data, `$recipient.x`, `$actor.x`, `$brand.x`, `$tenant.x` read those namespaces.
 */

export interface Namespaces {
  data: Record<string, unknown>;
  $recipient: Record<string, unknown>;
  $actor: Record<string, unknown> | null;
  $brand: Record<string, unknown> | null;
  $workflow: Record<string, unknown>;
}

/**
 * Follows a dotted path (`a.b.0.c`) into a value; undefined when any step is missing. Own members
 * only: `constructor` or `toString` of plain data are not data (issue 25).
 */
export function readPath(root: unknown, path: string): unknown {
  if (path === '') return root;
  let current: unknown = root;
  for (const key of path.split('.')) {
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isObject(current) && Object.hasOwn(current, key)) current = current[key];
    else return undefined;
  }
  return current;
}

const NAMESPACES = ['$recipient', '$actor', '$brand', '$tenant', '$workflow'] as const;

/** A jq-like expression: `.x.y` or `$recipient.x`; undefined when it names nothing. */
export function readExpression(namespaces: Namespaces, expression: string): unknown {
  const text = expression.trim();
  if (text.startsWith('.')) return readPath(namespaces.data, text.slice(1));
  for (const ns of NAMESPACES) {
    if (text === ns || text.startsWith(`${ns}.`)) {
      const root = ns === '$tenant' ? namespaces.$brand : namespaces[ns];
      return readPath(root, text.slice(ns.length + 1));
    }
  }
  return undefined;
}

export const isExpression = (text: string) =>
  text.trim().startsWith('.') || NAMESPACES.some((ns) => text.trim() === ns || text.trim().startsWith(`${ns}.`));
