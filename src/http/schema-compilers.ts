import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const serializerSelector = SerializerSelector();
/** Per shared schemas and options, the serializer compiled for each response schema object. */
const serializers = new Map<string, WeakMap<object, Serializer>>();

/**
 * Response serializers compiled once per process. Fastify compiles every route's serializer when an
 * app starts, most of the two CPU seconds Herald's routes take; the result depends only on the
 * schema object, the shared schemas and the options, so a second app over the same schemas (each
 * test file builds its own) reuses them (docs/testing.md, "Schemas compiled once").
 */
export const sharedSerializers: SerializerFactory = (externalSchemas, serializerOptions) => {
  const key = JSON.stringify([externalSchemas, serializerOptions ?? {}]);
  let cache = serializers.get(key);
  if (!cache) serializers.set(key, (cache = new WeakMap()));
  const compile = serializerSelector(externalSchemas, serializerOptions);
  const compiled = cache;
  return (route) => {
    const schema = route.schema as object;
    let serializer = compiled.get(schema);
    if (!serializer) compiled.set(schema, (serializer = compile(route)));
    return serializer;
  };
};
