import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { clockMinutes, isTimeZone } from './calendar.js';
import { parseDuration } from './durations.js';
import { isExpression } from './paths.js';
import { fieldAt } from './values.js';

/**
 * Checks a value against a node schema of src/schemas/workflow-nodes.ts, each refusal in the words
 * of the schema's `errorMessage` and naming the node's path (`here`) and the field. Each schema is
 * compiled once, at its first check. Pure.
 */

export const isHttpUrl = (value: unknown): value is string =>
  typeof value === 'string' && /^https?:\/\//.test(value.trim().replace(/^"|"$/g, ''));

// The formats the node schemas name (TypeBox's registry is the compiler's: they must be set before a check).
FormatRegistry.Set('namespace-path', isExpression);
FormatRegistry.Set('positive-duration', (value) => (parseDuration(value) ?? 0) > 0);
FormatRegistry.Set('clock', (value) => clockMinutes(value) !== undefined);
FormatRegistry.Set('time-zone', (value) => value === '' || isTimeZone(value));
FormatRegistry.Set('http-url', isHttpUrl);

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkOf(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = TypeCompiler.Compile(schema)));
  return check;
}

/**
 * The field a failure at `pointer` belongs to: the innermost schema with an `errorMessage` on the
 * way there (through object properties and array items; a union is reported where it stands).
 */
function refusalAt(schema: TSchema, pointer: string): { pointer: string; message: string } | undefined {
  const segments = pointer.split('/').slice(1);
  let found: { pointer: string; message: string } | undefined;
  let current: TSchema | undefined = schema;
  for (let depth = 0; current; depth += 1) {
    if (typeof current.errorMessage === 'string')
      found = { pointer: ['', ...segments.slice(0, depth)].join('/'), message: current.errorMessage };
    const segment = segments[depth];
    if (segment === undefined) break;
    current =
      current.type === 'object'
        ? (current.properties as Record<string, TSchema>)[segment]
        : current.type === 'array'
          ? (current.items as TSchema)
          : undefined;
  }
  return found;
}

/** Why `value` fails `schema`, one message per field, as `here: at message` (`at` under `prefix`). */
export function schemaErrors(schema: TSchema, value: unknown, here: string, prefix = ''): string[] {
  const check = checkOf(schema);
  if (check.Check(value)) return [];
  const messages = new Set<string>();
  for (const error of check.Errors(value)) {
    const refusal = refusalAt(schema, error.path);
    const at = fieldAt(prefix, refusal?.pointer ?? error.path);
    messages.add(`${here}: ${at} ${refusal?.message ?? error.message.toLowerCase()}`);
  }
  return [...messages];
}
