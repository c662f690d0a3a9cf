import { parseDuration } from './durations.js';
import { EVENT_NAME_MAX_LENGTH } from '../schemas/identifiers.js';
import { RecordError } from './trigger-records.js';

/**
 * The legacy dynamic workflow's delivery options (docs/spec/engine.md §1, `POST /{workspace_key}/trigger/`)
 * as nodes of the tree its trigger runs.
 */

/** The legacy names of the built-in success criteria, and the node's. */
const LEGACY_SUCCESS: Record<string, string> = {
  delivered: 'delivered',
  seen: 'seen',
  interaction: 'interacted',
  interacted: 'interacted',
};

/**
 * `delivery.smart: true` (ours, after the SDKs' docs): the user's channels one after another, cheapest
 * first (the smart node's order when it lists no channels), until `success` (default `seen`; any other name is a custom event the user tracks) within
 * `time_to_live` (default `1h`), the `mandatory_channels` always.
 */
export function legacySmartNode(
  name: string,
  template: string,
  delivery: Record<string, unknown>,
  mandatory: string[],
  prefix: string,
) {
  const success = delivery.success ?? 'seen';
  if (typeof success !== 'string' || success.trim() === '' || success.length > EVENT_NAME_MAX_LENGTH)
    throw new RecordError(`${prefix}delivery.success must be delivered, seen, interaction or an event name`);
  const ttl = delivery.time_to_live ?? '1h';
  if (parseDuration(ttl) === undefined)
    throw new RecordError(`${prefix}delivery.time_to_live must be a duration such as 30m, 1h or 1d2h`);
  const builtIn = LEGACY_SUCCESS[success];
  return {
    name,
    node_type: 'send_smart_channel_routing',
    template,
    mandatory_channels: mandatory,
    routing_basis: 'cost_low_to_high',
    ttl_value: String(ttl),
    ...(builtIn ? { success: builtIn } : { success, success_is_event: true }),
  };
}
