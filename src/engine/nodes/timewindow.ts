import { isTimeZone, nextWindowOpening, type ClockWindow } from '../../domain/calendar.js';
import { field } from '../../domain/workflow-tree.js';
import type { RunContext } from '../types.js';
import type { NodeHandler } from './types.js';

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

export const timewindow: NodeHandler = async (context) => {
  const windows = field(context.node, 'windows');
  if (!Array.isArray(windows) || windows.length === 0) return { kind: 'next' };
  const zone = nodeTimeZone(context, field(context.node, 'tz_selection'), field(context.node, 'tz_fixed'));
  const opening = nextWindowOpening(windows as ClockWindow[], zone, context.now);
  if (opening === null || opening === undefined) return { kind: 'next' };
  return { kind: 'wait', until: new Date(opening) };
};
