import { fieldError } from '../errors.js';
import { isEntityId, matcher, OBJECT_TYPE_PATTERN } from '../schemas/identifiers.js';

/** A recipient of add/remove subscription, read from the request. */
export type Recipient =
  | { kind: 'user'; at: string; distinctId: string; inline: Record<string, unknown> | null }
  | { kind: 'object'; at: string; ref: { objectType: string; objectId: string } };

const isObjectType = matcher(OBJECT_TYPE_PATTERN);

/** Reads `recipients`: distinct_id strings, inline users `{distinct_id, …}` and child objects `{object_type, id}`. */
export function readRecipients(recipients: unknown[]): Recipient[] {
  return recipients.map((recipient, index): Recipient => {
    const at = `recipients[${index}]`;
    if (typeof recipient === 'string') {
      if (!isEntityId(recipient)) throw fieldError(at, 'a distinct_id has 1 to 256 characters, not only spaces');
      return { kind: 'user', at, distinctId: recipient, inline: null };
    }
    if (typeof recipient !== 'object' || recipient === null || Array.isArray(recipient))
      throw fieldError(at, 'must be a distinct_id or an object');
    const { distinct_id, ...inline } = recipient as Record<string, unknown>;
    if (distinct_id !== undefined) {
      if (!isEntityId(distinct_id))
        throw fieldError(`${at}.distinct_id`, 'must have 1 to 256 characters, not only spaces');
      return { kind: 'user', at, distinctId: distinct_id, inline };
    }
    const { object_type, id } = inline;
    if (object_type === undefined && id === undefined)
      throw fieldError(at, 'needs distinct_id (a user) or object_type and id (an object)');
    if (typeof object_type !== 'string' || !isObjectType(object_type))
      throw fieldError(`${at}.object_type`, 'must be lowercase letters, digits, _ or -, at most 64 characters');
    if (!isEntityId(id)) throw fieldError(`${at}.id`, 'must have 1 to 256 characters, not only spaces');
    return { kind: 'object', at, ref: { objectType: object_type, objectId: id } };
  });
}
