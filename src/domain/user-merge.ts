import { sameJson, type Channels } from './channels.js';
import type { EntityState } from './entity-operations.js';
import type { ChannelKey } from '../schemas/users.js';

/**
 * The profile a merge leaves on the primary user: the primary's properties win, the secondary's
 * fill in keys the primary lacks; every channel entry of the secondary whose value the primary does
 * not have is appended after the primary's, with its status as it was.
 */
export function mergeUserStates(primary: EntityState, secondary: EntityState): EntityState {
  const channels: Channels = { ...primary.channels };
  for (const [key, entries] of Object.entries(secondary.channels) as [ChannelKey, Channels[ChannelKey]][]) {
    const kept = channels[key] ?? [];
    const added = (entries ?? []).filter((entry) => !kept.some((mine) => sameJson(mine.value, entry.value)));
    if (added.length > 0) channels[key] = [...kept, ...added];
  }
  return { properties: { ...secondary.properties, ...primary.properties }, channels };
}
