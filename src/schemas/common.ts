import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { WORKSPACE_SLUG_MAX_LENGTH } from './identifiers.js';

/** A `$ref` to a schema registered once with `addSchema`, typed as the schema it points to. */
export const ref = <T extends TSchema & { $id?: string }>(schema: T) =>
  Type.Unsafe<Static<T>>(Type.Ref(schema.$id as string));

/**
 * `T | null`. A schema with a single `type` gets a type list (`type: ['string', 'null']`), anything
 * else (a $ref, a union) an anyOf. The type list matters twice: Ajv, with the app's `coerceTypes`,
 * takes a null body field as it is (an anyOf's first branch coerces it to "" or [""]); and
 * fast-json-stringify writes it without running a validator to choose an anyOf branch, which was
 * ~6 % of the CPU of a 100-recipient subscription answer (BENCHMARKS.md).
 */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>(
    typeof schema.type === 'string' && schema.$ref === undefined
      ? { ...JSON.parse(JSON.stringify(schema)), type: [schema.type, 'null'] }
      : Type.Union([schema, Type.Null()]),
  );

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 with offset' });

/** The documented body of a 204 response. */
export const NoContent = Type.Null({ description: 'No Content' });

export const FullErrorSchema = Type.Object(
  {
    code: Type.Integer({ description: 'HTTP status' }),
    error_code: Type.String(),
    type: Type.String(),
    message: Type.String(),
    detail: Type.Union([Type.String(), Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  },
  { $id: 'FullError', title: 'Full error' },
);

export const ShortErrorSchema = Type.Object(
  { code: Type.Integer({ description: 'HTTP status' }), message: Type.String() },
  { $id: 'ShortError', title: 'Short error' },
);

export const ActorSchema = Type.Union([Type.Object({ name: Type.String(), email: Type.String() }), Type.Null()], {
  $id: 'Actor',
  title: 'Actor',
  description: 'Who made the change; null when no actor is recorded',
});
export type Actor = Static<typeof ActorSchema>;

export const ListMetaSchema = Type.Object(
  {
    count: Type.Integer({ description: 'total items matching the query' }),
    limit: Nullable(Type.Integer()),
    offset: Nullable(Type.Integer()),
  },
  { $id: 'ListMeta', title: 'List meta' },
);

export const OffsetQuerySchema = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0 }),
});

export const offsetList = <T extends TSchema>(item: T) =>
  Type.Object({ meta: ref(ListMetaSchema), results: Type.Array(item) });

export const WorkspaceParamsSchema = Type.Object({
  workspace: Type.String({ minLength: 1, maxLength: WORKSPACE_SLUG_MAX_LENGTH, description: 'workspace slug' }),
});

const errorResponses = (schema: TSchema, statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, schema]));

/** The 4xx/5xx responses every route documents, in the route's error shape. */
export const fullErrors = (...statuses: number[]) => errorResponses(ref(FullErrorSchema), statuses);
export const shortErrors = (...statuses: number[]) => errorResponses(ref(ShortErrorSchema), statuses);
/** The error statuses a route documents; their shape is its subtree's (http/error-shape.ts: withErrorShape). */
export const errors = fullErrors;

/** Dates leave the API as ISO 8601 with an explicit offset, as the hosted platform writes them. */
export const iso = (date: Date | string) =>
  (typeof date === 'string' ? new Date(date) : date).toISOString().replace('Z', '+00:00');
export const isoOrNull = (date: Date | string | null) => (date === null ? null : iso(date));
