import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;
type Validator = ReturnType<ReturnType<NonNullable<CompilersFactory['buildValidator']>>>;

/**
 * A validator compiled at its first call rather than when the app starts. Fastify reads `errors`
 * from the function it was given after a failed call (copied onto it), and passes the parent of
 * the value when the function has a `schemaEnv` (Ajv's, read through: asking for it compiles).
 */
export function compiledOnFirstUse(compile: () => Validator): Validator {
  let real: Validator | undefined;
  const compiled = () => (real ??= compile());
  const validate = ((...args: Parameters<Validator>) => {
    const result = (compiled() as (...a: unknown[]) => unknown)(...args);
    (validate as { errors?: unknown }).errors = (compiled() as { errors?: unknown }).errors;
    return result;
  }) as unknown as Validator;
  Object.defineProperty(validate, 'schemaEnv', { get: () => (compiled() as { schemaEnv?: unknown }).schemaEnv });
  return validate;
}

const schemaIds = new WeakMap<object, number>();
let nextSchemaId = 0;

/**
 * A key for a set of shared schemas by the schema objects themselves (each is registered once, from src/schemas) and
 * the options: Fastify asks for a compiler in every plugin's context, and a key of JSON of every shared schema took a
 * few percent of a start's CPU (BENCHMARKS.md, "Start time").
 */
export function sharedSchemasKey(externalSchemas: unknown, options: unknown): string {
  const ids = Object.entries((externalSchemas ?? {}) as Record<string, object>).map(([id, schema]) => {
    let known = schemaIds.get(schema);
    if (known === undefined) schemaIds.set(schema, (known = nextSchemaId++));
    return `${id}=${known}`;
  });
  return `${ids.join(',')}|${JSON.stringify(options ?? {})}`;
}

const serializerSelector = SerializerSelector();
/** Per shared schemas and options, the serializers' builder: it keeps the one compiled for each response schema. */
const builders = new Map<string, ReturnType<SerializerFactory>>();

/**
 * Response serializers compiled once per process. Fastify compiles every route's serializer when an
 * app starts, most of the two CPU seconds Herald's routes take; the result depends only on the
 * schema object, the shared schemas and the options, so a second app over the same schemas (each
 * test file builds its own) reuses them (docs/testing.md, "Schemas compiled once").
 */
export const sharedSerializers: SerializerFactory = (externalSchemas, serializerOptions) => {
  const key = sharedSchemasKey(externalSchemas, serializerOptions);
  const known = builders.get(key);
  if (known) return known;
  const compile = serializerSelector(externalSchemas, serializerOptions);
  const compiled = new WeakMap<object, Serializer>();
  const build: ReturnType<SerializerFactory> = (route) => {
    const schema = route.schema as object;
    let serializer = compiled.get(schema);
    if (!serializer) {
      // Compiled at its first use, not at start: a route's first answer pays a few milliseconds, and
      // `npm start` no longer compiles the serializers of every route before it listens (issue 32, point 12).
      let real: Serializer | undefined;
      serializer = (data) => (real ??= compile(route))(data);
      compiled.set(schema, serializer);
    }
    return serializer;
  };
  builders.set(key, build);
  return build;
};
