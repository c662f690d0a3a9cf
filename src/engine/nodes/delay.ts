import { parseDuration } from '../../domain/durations.js';
import { readExpression } from '../../domain/paths.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `delay`: fixed (`duration`), dynamic (a path to a duration or a number of seconds), or relative to
 * a timestamp in the data (`relative_to.pivot_expr` with an offset before or after). The run waits
 * as a delayed job, so a delay outlives any process. An unreadable dynamic value does not wait (ours).
 */
export const delay: NodeHandlerOf<'delay'> = async (context, config) => {
  const { namespaces, now } = context;
  const type = config.delay_type ?? 'fixed';
  let until: number | undefined;
  if (type === 'fixed') {
    const ms = parseDuration(config.duration);
    if (ms !== undefined) until = now + ms;
  } else if (type === 'dynamic') {
    const ms = parseDuration(readExpression(namespaces, String(config.duration)));
    if (ms !== undefined) until = now + ms;
  } else if (type === 'relative_to') {
    // relativeErrors (src/domain/flow-node-rules.ts) let only an object with a pivot_expr through.
    const relative = config.relative_to as Record<string, unknown>;
    const pivot = Date.parse(String(readExpression(namespaces, String(relative.pivot_expr)) ?? ''));
    const offsetRaw =
      relative.offset_value_type === 'dynamic'
        ? readExpression(namespaces, String(relative.offset_value ?? ''))
        : relative.offset_value;
    const offset = relative.offset_value === undefined ? 0 : (parseDuration(offsetRaw) ?? 0);
    if (!Number.isNaN(pivot)) until = relative.offset_type === 'before' ? pivot - offset : pivot + offset;
  }
  if (until === undefined || until <= now) return { kind: 'next' };
  return { kind: 'wait', until: new Date(until) };
};
