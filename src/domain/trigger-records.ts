import { TypeCompiler } from '@sinclair/typebox/compiler';
import { newUlid } from '../ids.js';
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  isEntityId,
  matcher,
  OBJECT_TYPE_PATTERN,
  TENANT_ID_MAX_LENGTH,
  WORKFLOW_SLUG_MAX_LENGTH,
} from '../schemas/identifiers.js';
import { MAX_TRIGGER_RECIPIENTS, TriggerRecordSchema, UserRecipientSchema } from '../schemas/triggers.js';
import { fieldAt, isObject } from './values.js';

/**
 * A trigger record as `POST /trigger/` takes it (docs/spec/engine.md §1), checked without the
 * database, one record at a time: each problem names the field, and the route answers it as a 400.
 * Every limit is the published schema's (src/schemas/triggers.ts, limits from schemas/identifiers.ts):
 * the reader tells which field is wrong in words, and the compiled schema has the last word.
 */

export type Recipient =
  | { kind: 'user'; distinctId: string; inline?: Record<string, unknown>; transient: boolean }
  | { kind: 'object'; objectType: string; objectId: string };

export interface TriggerRecord {
  workflow: string;
  recipients: Recipient[];
  data: Record<string, unknown>;
  actor: Recipient | null;
  tenantId: string;
  idempotencyKey: string | null;
  cancellationKey: string | null;
}

export class RecordError extends Error {}

const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;
const isObjectType = matcher(OBJECT_TYPE_PATTERN);
const recordCheck = TypeCompiler.Compile(TriggerRecordSchema);
const userCheck = TypeCompiler.Compile(UserRecipientSchema);

/** The first error of a compiled schema's check, as a RecordError naming the field; nothing when it passes. */
export function checkWith(check: ReturnType<typeof TypeCompiler.Compile>, value: unknown, prefix: string) {
  const error = check.Errors(value).First();
  if (error) throw new RecordError(`${fieldAt(prefix, error.path)} ${error.message.toLowerCase()}`);
}

/**
 * A transient recipient without distinct_id (the SDKs' `{is_transient: true, $email: […]}`, "profiles
 * are not created for such users") is given one for its run: `$transient/` and a fresh ULID (ours),
 * which no stored user can hold, since nobody can know it before the trigger is accepted.
 */
export const TRANSIENT_ID_PREFIX = '$transient/';

/** Keys of an inline user that are about the recipient, not its properties. */
const INLINE_CONTROL_KEYS = new Set(['distinct_id', 'is_transient', '$skip_create']);
const inlineOf = (value: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !INLINE_CONTROL_KEYS.has(key)));

export function readRecipient(value: unknown, at: string): Recipient {
  if (typeof value === 'string') {
    if (!isEntityId(value))
      throw new RecordError(`${at} must be a distinct_id of 1 to 256 characters, not only spaces`);
    return { kind: 'user', distinctId: value, transient: false };
  }
  if (isObject(value) && value.distinct_id !== undefined && value.distinct_id !== null) {
    if (!isEntityId(value.distinct_id))
      throw new RecordError(`${at}.distinct_id must be a string of 1 to 256 characters, not only spaces`);
    checkWith(userCheck, value, at);
    return {
      kind: 'user',
      distinctId: value.distinct_id,
      inline: inlineOf(value),
      transient: value.is_transient === true,
    };
  }
  if (isObject(value) && value.is_transient === true)
    return { kind: 'user', distinctId: `${TRANSIENT_ID_PREFIX}${newUlid()}`, inline: inlineOf(value), transient: true };
  if (isObject(value) && (value.object_type !== undefined || value.id !== undefined)) {
    if (typeof value.object_type !== 'string' || !isObjectType(value.object_type))
      throw new RecordError(`${at}.object_type must be lowercase letters, digits, _ or -, at most 64 characters`);
    if (value.id === undefined || value.id === '') throw new RecordError(`${at}.id must be a non-empty string`);
    if (!isEntityId(value.id))
      throw new RecordError(`${at}.id must be a string of 1 to 256 characters, not only spaces`);
    return { kind: 'object', objectType: value.object_type, objectId: value.id };
  }
  // A transient user {is_transient: true, …} is a user {…} too.
  throw new RecordError(`${at} must be a distinct_id, a user {distinct_id, …} or an object {object_type, id}`);
}

const optionalText = (record: Record<string, unknown>, key: string, max: number, at: string) => {
  const value = record[key];
  if (value === undefined || value === null) return null;
  if (!isText(value, max)) throw new RecordError(`${at}${key} must be a string of 1 to ${max} characters`);
  return value;
};

export function readTriggerRecord(value: unknown, at = ''): TriggerRecord {
  if (!isObject(value)) throw new RecordError(`${at || 'body'} must be a JSON object`);
  const prefix = at ? `${at}.` : '';
  if (value.workflow === undefined) throw new RecordError(`${prefix}workflow is required`);
  if (!isText(value.workflow, WORKFLOW_SLUG_MAX_LENGTH))
    throw new RecordError(`${prefix}workflow must be a workflow slug`);
  if (value.recipients === undefined) throw new RecordError(`${prefix}recipients is required`);
  if (!Array.isArray(value.recipients) || value.recipients.length === 0)
    throw new RecordError(`${prefix}recipients must be a non-empty array`);
  if (value.recipients.length > MAX_TRIGGER_RECIPIENTS)
    throw new RecordError(`${prefix}recipients must hold at most ${MAX_TRIGGER_RECIPIENTS} recipients`);
  const recipients = value.recipients.map((recipient, i) => readRecipient(recipient, `${prefix}recipients[${i}]`));
  if (value.data !== undefined && value.data !== null && !isObject(value.data))
    throw new RecordError(`${prefix}data must be an object`);
  const actor = value.actor === undefined || value.actor === null ? null : readRecipient(value.actor, `${prefix}actor`);
  if (actor?.kind === 'object' || (actor?.kind === 'user' && actor.distinctId.startsWith(TRANSIENT_ID_PREFIX)))
    throw new RecordError(`${prefix}actor must be a distinct_id or a user`);
  const record = {
    workflow: value.workflow,
    recipients,
    data: (value.data as Record<string, unknown> | undefined) ?? {},
    actor,
    tenantId: optionalText(value, 'tenant_id', TENANT_ID_MAX_LENGTH, prefix) ?? 'default',
    idempotencyKey: optionalText(value, '$idempotency_key', IDEMPOTENCY_KEY_MAX_LENGTH, prefix),
    cancellationKey: optionalText(value, 'cancellation_key', IDEMPOTENCY_KEY_MAX_LENGTH, prefix),
  };
  // The published record schema, compiled, has the last word: nothing it refuses is accepted.
  checkWith(recordCheck, value, at);
  return record;
}
