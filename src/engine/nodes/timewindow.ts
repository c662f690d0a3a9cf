import { isTimeZone, nextWindowOpening, type ClockWindow } from '../../domain/calendar.js';
import type { RunContext } from '../types.js';
import type { NodeHandlerOf } from './types.js';

/**
 * `timewindow`: the run goes on only inside one of the `windows` (`[stime, etime)` on the days their
 * recurrence admits); outside all of them it waits, as a scheduled job, for the next opening. The zone
 * is `tz_fixed`, or the recipient's `$timezone` with `tz_selection: recipient`; without a usable one
 * (ours) the tenant's `timezone`, then UTC.
 */

export function nodeTimeZone(context: RunContext, selection: unknown, fixed: unknown): string {
  const candidates =
    selection === 'recipient'
      ? [context.recipient.properties.$timezone, context.namespaces.$brand?.timezone, fixed]
      : [fixed, context.namespaces.$brand?.timezone];
  return (candidates.find(isTimeZone) as string | undefined) ?? 'UTC';
}

export const timewindow: NodeHandlerOf<'timewindow'> = async (context, config) => {
  const zone = nodeTimeZone(context, config.tz_selection, config.tz_fixed);
  // Each window's days are as its frequency needs them: dayRuleErrors (src/domain/flow-node-rules.ts).
  const opening = nextWindowOpening(config.windows as ClockWindow[], zone, context.now);
  if (opening === null || opening === undefined) return { kind: 'next' };
  return { kind: 'wait', until: new Date(opening) };
};
