import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ulid } from 'ulid';
import { badRequest } from '../errors.js';
import type { NewEvent } from '../repositories/events.js';
import { isReservedEventName, MAX_EVENT_RECORDS, TrackRecordSchema, UserEditRecordSchema } from '../schemas/events.js';

/** A user-edit record of `POST /event/`, its operations checked later by applyOperations. */
export interface UserEditRecord {
  at: string;
  distinctId: string;
  operations: unknown[];
}

const trackCheck = TypeCompiler.Compile(TrackRecordSchema);
// Operations are checked one by one when applied, with the same messages as PATCH.
const userEditCheck = TypeCompiler.Compile(Type.Object({ ...UserEditRecordSchema.properties, $user_operations: Type.Array(Type.Unknown(), { maxItems: 100 }) }));

const invalid = (field: string, reason: string) => badRequest(`${field}: ${reason}`, { [field]: reason });
const fieldAt = (prefix: string, pointer: string) => [prefix, ...pointer.split('/').filter(Boolean)].filter(Boolean).join('.') || 'body';

function check<T>(checker: ReturnType<typeof TypeCompiler.Compile<TSchema>>, record: unknown, prefix: string): T {
  const error = checker.Errors(record).First();
  if (error) throw invalid(fieldAt(prefix, error.path), error.message.toLowerCase());
  return record as T;
}

/**
 * Splits a `POST /event/` body (one record or a list) into tracked events and user edits,
 * rejecting the whole body at the first bad record with the record's index and field.
 */
export function readEventRecords(body: unknown, now = new Date()): { events: NewEvent[]; edits: UserEditRecord[] } {
  const list = Array.isArray(body);
  const records: unknown[] = list ? body : [body];
  if (records.length === 0) throw invalid('body', 'must hold at least one record');
  if (records.length > MAX_EVENT_RECORDS) throw invalid('body', `at most ${MAX_EVENT_RECORDS} records per request (got ${records.length})`);
  const events: NewEvent[] = [];
  const edits: UserEditRecord[] = [];
  records.forEach((record, index) => {
    const prefix = list ? `[${index}]` : '';
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw invalid(prefix || 'body', 'must be an object');
    if ('$user_operations' in record) {
      const edit = check<{ distinct_id: string; $user_operations: unknown[] }>(userEditCheck, record, prefix);
      edits.push({ at: fieldAt(prefix, '$user_operations'), distinctId: edit.distinct_id, operations: edit.$user_operations });
      return;
    }
    if (!('event' in record)) throw invalid(fieldAt(prefix, 'event'), 'is required (or $user_operations for a user edit)');
    const track = check<typeof TrackRecordSchema.static>(trackCheck, record, prefix);
    const name = track.event.trim();
    if (isReservedEventName(name)) throw invalid(fieldAt(prefix, 'event'), `'${name}' is reserved: names starting with $ or ss_ belong to the platform`);
    events.push({
      distinct_id: track.distinct_id,
      event: name,
      properties: track.properties ?? {},
      tenant_id: track.tenant_id ?? track.brand_id ?? null,
      insert_id: track.$idempotency_key ?? track.$insert_id ?? ulid(),
      created_at: track.$time === undefined ? now : new Date(track.$time),
    });
  });
  return { events, edits };
}
