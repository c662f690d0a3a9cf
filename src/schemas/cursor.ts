import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, ref } from './common.js';

/** docs/spec/compat.md cursor pagination: `?limit&before&after`, default 10, at most 1000. */
export const CursorQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  before: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: 'opaque cursor from meta.before: the page before it' }),
  ),
  after: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, description: 'opaque cursor from meta.after: the page after it' }),
  ),
});
export type CursorQuery = Static<typeof CursorQuerySchema>;

export const CursorMetaSchema = Type.Object(
  {
    count: Type.Integer({ description: 'total items matching the query' }),
    limit: Type.Integer(),
    has_prev: Type.Boolean(),
    before: Nullable(Type.String({ description: 'pass as ?before= for the previous page' })),
    has_next: Type.Boolean(),
    after: Nullable(Type.String({ description: 'pass as ?after= for the next page' })),
  },
  { $id: 'CursorListMeta', title: 'Cursor list meta' },
);

export const cursorList = <T extends TSchema>(item: T) =>
  Type.Object({ meta: ref(CursorMetaSchema), results: Type.Array(item) });
