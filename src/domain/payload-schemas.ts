import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

/**
 * Payload schemas: JSON Schemas (draft 2020-12) a workflow trigger's `data` must satisfy when its
 * event links one. Pure: compiling and checking, no database.
 */

// ajv-formats is CommonJS: its plugin is under `default` when loaded from ESM.
const addFormats = ((formats as unknown as { default?: typeof formats }).default ?? formats) as unknown as (
  ajv: Ajv2020,
) => Ajv2020;
// A fresh instance per compile: Ajv keeps every schema it compiled by its $id, and two versions of
// one payload schema may well share an $id. Compiled functions are cached by hash below instead.
const compile = (schema: Record<string, unknown>) =>
  addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true })).compile(schema);

const SCHEMA_KEYWORDS = ['$schema', 'type', 'properties', '$defs', 'items', 'anyOf', 'oneOf', 'allOf', 'enum', '$ref'];

/** Why a document cannot serve as a payload schema; empty when it can. */
export function jsonSchemaErrors(schema: Record<string, unknown>): string[] {
  if (!SCHEMA_KEYWORDS.some((keyword) => keyword in schema))
    return [
      "Schema looks like JSON data, not a JSON Schema. Include keywords like '$schema', 'type', 'properties', or '$defs'.",
    ];
  try {
    compile(schema);
    return [];
  } catch (error) {
    return [`not a valid JSON Schema: ${(error as Error).message}`];
  }
}

const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
        )
      : value;

/** What identifies a schema's content: equal hashes, nothing to commit. Key order does not count. */
export const schemaHash = (name: string, schema: Record<string, unknown>) =>
  createHash('sha256')
    .update(JSON.stringify(canonical({ name, schema })))
    .digest('hex')
    .slice(0, 32);

const compiled = new Map<string, ValidateFunction>();
const COMPILED_LIMIT = 500;

/**
 * Where `payload` breaks the schema, as `path: reason` strings (empty when it satisfies it). Compiled
 * schemas are kept by content hash, so a trigger checks against a compiled function.
 */
export function payloadErrors(schema: Record<string, unknown>, hash: string, payload: unknown): string[] {
  const validate = validatorFor(schema, hash);
  if (validate(payload)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'}: ${error.message ?? 'is invalid'}`);
}

function validatorFor(schema: Record<string, unknown>, hash: string) {
  let validate = compiled.get(hash);
  if (!validate) {
    validate = compile(schema);
    if (compiled.size >= COMPILED_LIMIT) compiled.clear();
    compiled.set(hash, validate);
  }
  return validate;
}

/** A linked payload schema's committed version, as a trigger checks against it. */
export interface LinkedSchema {
  slug: string;
  version_no: number;
  json_schema: Record<string, unknown>;
  hash: string;
}

/**
 * Where `payload` breaks the schema, each as the field (a dotted path under `root`, e.g.
 * `data.order.amount`) and the reason; empty when it satisfies it. A missing property is named as
 * the field it should be.
 */
export function payloadFieldErrors(schema: LinkedSchema, payload: unknown, root: string) {
  const validate = validatorFor(schema.json_schema, schema.hash);
  if (validate(payload)) return [];
  return (validate.errors ?? []).map((error) => {
    const path = error.instancePath.split('/').filter(Boolean).map(unescapePointer);
    const missing = (error.params as { missingProperty?: unknown }).missingProperty;
    if (typeof missing === 'string') path.push(missing);
    return {
      field: [root, ...path].filter(Boolean).join('.'),
      reason: typeof missing === 'string' ? 'is required' : (error.message ?? 'is invalid'),
    };
  });
}

const unescapePointer = (part: string) => part.replace(/~1/g, '/').replace(/~0/g, '~');

/** One message naming every field (up to five) and the schema: what a refused trigger answers. */
export function describePayloadErrors(schema: LinkedSchema, errors: { field: string; reason: string }[]) {
  const shown = errors.slice(0, 5).map((e) => `${e.field} ${e.reason}`);
  const more = errors.length > shown.length ? `; and ${errors.length - shown.length} more` : '';
  return `${shown.join('; ')}${more} (payload schema '${schema.slug}', version ${schema.version_no})`;
}
