import { readExpression, type Namespaces } from './paths.js';

/**
 * The JSONNET values of the nodes (transform, userupdate, invokeworkflow, subscription properties),
 * evaluated as the trivial JSONNET (docs/engine.md, "JSONNET"): plain JSON is its own value; else
 * the text is a path into the run — `data.x`, `data["$recipient"].manager_id`, `.x`,
 * `$recipient.x` — read as docs/spec/engine.md §3 reads paths. Undefined when it names nothing.
 * Pure.
 */
export function evaluateJsonnet(text: string, namespaces: Namespaces): unknown {
  const source = text.trim();
  try {
    return JSON.parse(source);
  } catch {
    // not JSON: a path
  }
  const dotted = source.replace(/\[\s*(?:"([^"]+)"|'([^']+)')\s*\]/g, (_m, a?: string, b?: string) => `.${a ?? b}`);
  if (dotted === 'data') return namespaces.data;
  if (dotted.startsWith('data.')) {
    const rest = dotted.slice('data.'.length);
    return readExpression(namespaces, rest.startsWith('$') ? rest : `.${rest}`);
  }
  return readExpression(namespaces, dotted);
}

/** Whether a JSONNET field can be read by `evaluateJsonnet`: JSON, or a path it understands. */
export function isTrivialJsonnet(text: string): boolean {
  const source = text.trim();
  try {
    JSON.parse(source);
    return true;
  } catch {
    const dotted = source.replace(/\[\s*(?:"([^"]+)"|'([^']+)')\s*\]/g, (_m, a?: string, b?: string) => `.${a ?? b}`);
    return /^(data|\.|\$[a-z_]+)([.\w$-]*)$/.test(dotted);
  }
}

/**
 * Whether an HTTP node's value (url, header, query parameter, body) is one it can read: the trivial JSONNET, or
 * (ours) plain text with none of JSONNET's expression syntax — no quotes, brackets, braces, parentheses or `+`, not
 * opening with a keyword or `std.` — which the node sends as written (`https://example.com/hook`, `Bearer k1`).
 */
export function isHttpNodeValue(text: string): boolean {
  if (isTrivialJsonnet(text)) return true;
  const source = text.trim();
  return !/["'{}[\]()+]/.test(source) && !/^((local|function|if|import|importstr|self|super)\b|std\.)/.test(source);
}
