import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { fieldError } from '../errors.js';
import { compiledOnFirstUse, sharedSchemasKey } from './schema-compilers.js';

/** Ajv options shared by every part of a request. */
export const AJV_OPTIONS = { removeAdditional: false, useDefaults: true, allErrors: false } as const;

type ValidatorFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']
>;

/**
 * Bodies are validated without type coercion: JSON carries its own types, and `{"query": 12}` is
 * a number, not the string "12". Query strings, path parameters and headers are text by nature
 * and keep Ajv's coercion (`?limit=10` is the number the API documents).
 */
// One pool for the process: the library keys its Ajv instances by shared schemas and options, and
// Ajv caches each compiled schema by object, so every app this process builds (each test file
// builds its own) compiles a route's schema once (docs/testing.md, "Schemas compiled once").
const factory = AjvCompiler();
/** The builder per shared schemas and options: the library's own pool keys on JSON of every shared schema. */
const builders = new Map<string, ReturnType<ValidatorFactory>>();

const validatorsOf: ValidatorFactory = (externalSchemas, ajvOptions) => {
  type Options = Parameters<typeof factory>[1];
  const custom = (ajvOptions as { customOptions?: Record<string, unknown> }).customOptions ?? {};
  const coercing = factory(externalSchemas, {
    ...ajvOptions,
    customOptions: { ...custom, coerceTypes: 'array' },
  } as Options);
  const strict = factory(externalSchemas, {
    ...ajvOptions,
    customOptions: { ...custom, coerceTypes: false },
  } as Options);
  // Compiled at first use: `npm start` does not compile every route's validators before it listens.
  return (route) => compiledOnFirstUse(() => (route.httpPart === 'body' ? strict(route) : coercing(route)));
};

export const strictBodyValidators: ValidatorFactory = (externalSchemas, ajvOptions) => {
  const key = sharedSchemasKey(externalSchemas, ajvOptions);
  let build = builders.get(key);
  if (!build) builders.set(key, (build = validatorsOf(externalSchemas, ajvOptions)));
  return build;
};

/**
 * Ajv coerces a query string's `Infinity`, `NaN` or `1e999` into a number and then skips its range checks for a
 * value that is not finite, so `?limit=Infinity` would reach a handler (and a serializer that refuses it: a 500).
 * After validation, any number in the query or the path that is not finite is refused like any bad value.
 */
export function refuseNonFiniteNumbers(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
  for (const part of [request.query, request.params]) {
    if (typeof part !== 'object' || part === null) continue;
    for (const [key, value] of Object.entries(part)) {
      if (typeof value === 'number' && !Number.isFinite(value)) return done(fieldError(key, 'must be a finite number'));
    }
  }
  done();
}
