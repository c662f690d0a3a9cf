import { parseDuration } from '../domain/durations.js';
import { readExpression, type Namespaces } from '../domain/paths.js';

/**
 * The three ways a time-based node names a moment (docs/spec/engine.md §3): a fixed duration, a
 * duration read from the data, or an offset before or after a timestamp in the data. Undefined when
 * the value cannot be read.
 */
export function momentFrom(
  namespaces: Namespaces,
  now: number,
  type: unknown,
  fixed: unknown,
  dynamicExpr: unknown,
  relative: unknown,
): number | undefined {
  if (type === 'fixed' || type === undefined) {
    const ms = parseDuration(fixed);
    return ms === undefined ? undefined : now + ms;
  }
  if (type === 'dynamic') {
    const ms = parseDuration(readExpression(namespaces, String(dynamicExpr ?? '')));
    return ms === undefined ? undefined : now + ms;
  }
  if (type === 'relative_to') {
    const r = (relative ?? {}) as Record<string, unknown>;
    const pivot = Date.parse(String(readExpression(namespaces, String(r.pivot_expr ?? '')) ?? ''));
    if (Number.isNaN(pivot)) return undefined;
    const raw =
      r.offset_value_type === 'dynamic' ? readExpression(namespaces, String(r.offset_value ?? '')) : r.offset_value;
    const offset = r.offset_value === undefined ? 0 : (parseDuration(raw) ?? 0);
    return r.offset_type === 'before' ? pivot - offset : pivot + offset;
  }
  return undefined;
}
