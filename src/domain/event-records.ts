import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { fieldError } from '../errors.js';
import { EditOperationSchema } from '../schemas/entity-operations.js';
import { newUlid } from '../ids.js';
import { fieldAt, isObject } from './values.js';
import {
  EventsBodySchema,
  isReservedEventName,
  MAX_EVENT_RECORDS,
  MAX_USER_EDIT_RECORDS,
  TrackRecordSchema,
  UserEditRecordSchema,
} from '../schemas/events.js';

/** A tracked event, ready to store. */
export interface NewEvent {
  distinct_id: string;
  event: string;
  properties: Record<string, unknown>;
  tenant_id: string | null;
  insert_id: string;
  created_at: Date;
}

/** A user-edit record of `POST /event/`, its operations applied later by applyOperations. */
export interface UserEditRecord {
  at: string;
  distinctId: string;
  operations: unknown[];
}

/**
 * The schemas POST /event/ publishes in OpenAPI, compiled as they are (their $refs resolved): the
 * body is checked record by record against the two record schemas, so that an error names the
 * record's index and field instead of a branch of the union, and then as a whole against the
 * published body schema, so nothing it rejects is ever accepted.
 */
const references = [EditOperationSchema];
const trackCheck = TypeCompiler.Compile(TrackRecordSchema);
const userEditCheck = TypeCompiler.Compile(UserEditRecordSchema, references);
const bodyCheck = TypeCompiler.Compile(EventsBodySchema, references);

function check<T>(checker: ReturnType<typeof TypeCompiler.Compile<TSchema>>, record: unknown, prefix: string): T {
  const error = checker.Errors(record).First();
  if (error) throw fieldError(fieldAt(prefix, error.path), error.message.toLowerCase());
  return record as T;
}

const isUserEdit = (record: unknown) => isObject(record) && '$user_operations' in record;

/**
 * Splits a `POST /event/` body (one record or a list) into tracked events and user edits,
 * rejecting the whole body at the first bad record with the record's index and field.
 */
export function readEventRecords(
  body: unknown,
  now = new Date(),
): { events: NewEvent[]; edits: UserEditRecord[]; propertiesAt: string[] } {
  const list = Array.isArray(body);
  const records: unknown[] = list ? body : [body];
  if (records.length === 0) throw fieldError('body', 'must hold at least one record');
  if (records.length > MAX_USER_EDIT_RECORDS)
    throw fieldError('body', `at most ${MAX_USER_EDIT_RECORDS} records per request (got ${records.length})`);
  if (records.length > MAX_EVENT_RECORDS && !records.every(isUserEdit))
    throw fieldError('body', `at most ${MAX_EVENT_RECORDS} records per request (got ${records.length})`);
  const events: NewEvent[] = [];
  const edits: UserEditRecord[] = [];
  // Where each event's properties are in the body (`[2].properties`), for errors about them.
  const propertiesAt: string[] = [];
  records.forEach((record, index) => {
    const prefix = list ? `[${index}]` : '';
    if (!isObject(record)) throw fieldError(prefix || 'body', 'must be an object');
    if ('$user_operations' in record) {
      const edit = check<{ distinct_id: string; $user_operations: unknown[] }>(userEditCheck, record, prefix);
      edits.push({
        at: fieldAt(prefix, '$user_operations'),
        distinctId: edit.distinct_id,
        operations: edit.$user_operations,
      });
      return;
    }
    if (!('event' in record))
      throw fieldError(fieldAt(prefix, 'event'), 'is required (or $user_operations for a user edit)');
    const track = check<typeof TrackRecordSchema.static>(trackCheck, record, prefix);
    const name = track.event.trim();
    if (isReservedEventName(name))
      throw fieldError(
        fieldAt(prefix, 'event'),
        `'${name}' is reserved: names starting with $ or ss_ belong to the platform`,
      );
    propertiesAt.push(fieldAt(prefix, 'properties'));
    events.push({
      distinct_id: track.distinct_id,
      event: name,
      properties: track.properties ?? {},
      tenant_id: track.tenant_id ?? track.brand_id ?? null,
      insert_id: track.$idempotency_key ?? track.$insert_id ?? newUlid(),
      created_at: track.$time === undefined ? now : new Date(track.$time),
    });
  });
  if (!bodyCheck.Check(body)) throw fieldError('body', 'does not match the published schema of POST /event/');
  return { events, edits, propertiesAt };
}
