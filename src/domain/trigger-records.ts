import { isObject } from './values.js';

/**
 * A trigger record as `POST /trigger/` takes it (docs/spec/engine.md §1), checked without the
 * database. Each problem names the field; the route answers it as a 400.
 */

export const MAX_RECIPIENTS = 100;
export const MAX_RECORDS = 100;
export const TRIGGER_BODY_LIMIT = 800 * 1024;

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

/** Keys of an inline user that are about the recipient, not its properties. */
const INLINE_CONTROL_KEYS = new Set(['distinct_id', 'is_transient', '$skip_create']);

export function readRecipient(value: unknown, at: string): Recipient {
  if (typeof value === 'string') {
    if (!isText(value, 255)) throw new RecordError(`${at} must be a distinct_id of 1 to 255 characters`);
    return { kind: 'user', distinctId: value, transient: false };
  }
  if (isObject(value) && value.distinct_id !== undefined) {
    if (!isText(value.distinct_id, 255))
      throw new RecordError(`${at}.distinct_id must be a string of 1 to 255 characters`);
    if (value.is_transient !== undefined && typeof value.is_transient !== 'boolean')
      throw new RecordError(`${at}.is_transient must be a boolean`);
    const inline = Object.fromEntries(Object.entries(value).filter(([key]) => !INLINE_CONTROL_KEYS.has(key)));
    return { kind: 'user', distinctId: value.distinct_id, inline, transient: value.is_transient === true };
  }
  if (isObject(value) && (value.object_type !== undefined || value.id !== undefined)) {
    if (!isText(value.object_type, 255)) throw new RecordError(`${at}.object_type must be a non-empty string`);
    if (!isText(value.id, 255)) throw new RecordError(`${at}.id must be a non-empty string`);
    return { kind: 'object', objectType: value.object_type, objectId: value.id };
  }
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
  if (!isText(value.workflow, 255)) throw new RecordError(`${prefix}workflow must be a workflow slug`);
  if (value.recipients === undefined) throw new RecordError(`${prefix}recipients is required`);
  if (!Array.isArray(value.recipients) || value.recipients.length === 0)
    throw new RecordError(`${prefix}recipients must be a non-empty array`);
  if (value.recipients.length > MAX_RECIPIENTS)
    throw new RecordError(`${prefix}recipients must hold at most ${MAX_RECIPIENTS} recipients`);
  const recipients = value.recipients.map((recipient, i) => readRecipient(recipient, `${prefix}recipients[${i}]`));
  if (value.data !== undefined && value.data !== null && !isObject(value.data))
    throw new RecordError(`${prefix}data must be an object`);
  const actor = value.actor === undefined || value.actor === null ? null : readRecipient(value.actor, `${prefix}actor`);
  if (actor?.kind === 'object') throw new RecordError(`${prefix}actor must be a distinct_id or a user`);
  return {
    workflow: value.workflow,
    recipients,
    data: (value.data as Record<string, unknown> | undefined) ?? {},
    actor,
    tenantId: optionalText(value, 'tenant_id', 64, prefix) ?? 'default',
    idempotencyKey: optionalText(value, '$idempotency_key', 255, prefix),
    cancellationKey: optionalText(value, 'cancellation_key', 255, prefix),
  };
}
