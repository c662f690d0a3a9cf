import { Type } from '@sinclair/typebox';

/**
 * The body of an action that takes no input: the SDKs send `{}`, curl often nothing. Documented so
 * that clients see the call needs no body; keys sent are ignored.
 */
export const EmptyBodySchema = Type.Union(
  [Type.Object({}, { additionalProperties: true, description: 'ignored' }), Type.Null()],
  { description: 'no input: send nothing or {}' },
);
