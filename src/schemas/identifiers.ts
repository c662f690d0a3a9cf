import { ULID_PATTERN } from '../ids.js';

/**
 * Every identifier's shape and limit, defined once: the TypeBox schemas validate requests with
 * these, and the readers that check values no schema reaches (path segments checked by hand,
 * recipients inside a list of unknowns, CLI arguments) test the same ones.
 */

export const API_KEY_ID_PREFIX = 'ws_apik_';
export const WORKSPACE_KEY_ID_PREFIX = 'ws_key_';
export const WEBHOOK_ENDPOINT_ID_PREFIX = 'whep_';
export const prefixedIdPattern = (prefix: string) => `^${prefix}${ULID_PATTERN}$`;

export const WORKSPACE_SLUG_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}[a-z0-9]$|^[a-z0-9]$';
export const WORKSPACE_SLUG_MAX_LENGTH = 64;
export const WORKFLOW_SLUG_PATTERN = '^[a-z0-9_-]{1,255}$';
export const WORKFLOW_SLUG_MAX_LENGTH = 255;
/** A tracked event's name (`POST /event/`). */
export const EVENT_NAME_MAX_LENGTH = 256;
/** Ours: a subscriber list id, 1 to 128 characters without spaces or slashes, case-sensitive. */
export const LIST_ID_PATTERN = '^[^\\s/]{1,128}$';
export const CATEGORY_SLUG_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
export const CATEGORY_SLUG_MAX_LENGTH = 64;
/** Ours: a plural namespace word — lowercase letters, digits, `_` and `-`, at most 64 characters. */
export const OBJECT_TYPE_PATTERN = '^[a-z0-9_-]{1,64}$';
/** A tenant's id (`tenant_id`, and the older SDKs' `brand_id`). */
export const TENANT_ID_MAX_LENGTH = 64;
/** An idempotency key, a cancellation key. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** distinct_id and object id: 1 to 256 characters, not only spaces; case-sensitive, any character. */
export const ENTITY_ID_LIMITS = { minLength: 1, maxLength: 256, pattern: '\\S' } as const;

/** A reader's test for one of the patterns above. */
export function matcher(pattern: string): (value: string) => boolean {
  const regExp = new RegExp(pattern);
  return (value) => regExp.test(value);
}

/** Whether a value satisfies ENTITY_ID_LIMITS. */
export const isEntityId = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.length >= ENTITY_ID_LIMITS.minLength &&
  value.length <= ENTITY_ID_LIMITS.maxLength &&
  /\S/.test(value);
