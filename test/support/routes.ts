import type { FastifyInstance } from 'fastify';
import { Ajv, type ValidateFunction } from 'ajv';
import formats from 'ajv-formats';

// ajv-formats is CommonJS: its default export is the plugin under `default` when loaded from ESM.
const addFormats = ((formats as unknown as { default?: typeof formats }).default ?? formats) as unknown as (
  ajv: Ajv,
) => Ajv;

/** A JSON Schema as the OpenAPI documents carry it (TypeBox output, `$ref`s resolved). */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  patternProperties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minProperties?: number;
  maxProperties?: number;
  default?: unknown;
  $ref?: string;
  [keyword: string]: unknown;
}

export interface RouteInput {
  name: string;
  schema: JsonSchema;
  /** Must be sent: required and without a default. */
  required: boolean;
}

export type Surface = 'base' | 'management' | 'public' | 'inbox';

/** One documented route, everything a generic test needs to call it and judge its answers. */
export interface CatalogueRoute {
  surface: Surface;
  method: string;
  /** Full path as documented, management prefix included, parameters as `{name}`. */
  path: string;
  operationId: string;
  params: RouteInput[];
  query: RouteInput[];
  body?: JsonSchema;
  bodyRequired: boolean;
  /** Response schema by status (null: no body, e.g. 204). */
  responses: Map<number, JsonSchema | null>;
  /** Statuses whose body is documented as text/plain. */
  /** Statuses whose body is text (Prometheus text, an HTML page), with their media type. */
  textResponses: Map<number, string>;
  /** The error body the route documents: full `{code, error_code, type, message, detail}` or short `{code, message}`. */
  /** `fail`: the trigger calls' `{status: "fail", message}` (docs/spec/engine.md §1). */
  errorShape: 'full' | 'short' | 'fail';
  label: string;
}

type Operation = {
  operationId?: string;
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
};

/** Replaces every `$ref` to `#/components/schemas/X` by the schema it names (the documents have no cycles). */
function dereference(schema: unknown, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (depth > 50) throw new Error('schema nests too deeply (a $ref cycle?)');
  if (Array.isArray(schema)) return schema.map((item) => dereference(item, components, depth + 1));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as JsonSchema).$ref;
  if (typeof ref === 'string') {
    const target = components[ref.replace('#/components/schemas/', '')];
    if (!target) throw new Error(`unresolved ${ref}`);
    return dereference(target, components, depth + 1);
  }
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, dereference(value, components, depth + 1)]),
  );
}

/** Every route of both surfaces, as their OpenAPI documents describe them: whatever is registered when the test runs. */
export async function routeCatalogue(
  app: FastifyInstance,
  managementPrefix = '/management',
): Promise<CatalogueRoute[]> {
  const routes: CatalogueRoute[] = [];
  for (const [documentUrl, prefix] of [
    ['/openapi.json', ''],
    [`${managementPrefix}/openapi.json`, managementPrefix],
  ] as const) {
    const response = await app.inject({ method: 'GET', url: documentUrl });
    if (response.statusCode !== 200) throw new Error(`${documentUrl}: ${response.statusCode}`);
    const document = response.json() as Document;
    const components = document.components?.schemas ?? {};
    const resolve = (schema: unknown) => dereference(schema, components) as JsonSchema;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const parameters = (operation.parameters ?? []).map((p) => ({ ...p, schema: resolve(p.schema) }));
        const inputs = (where: string) =>
          parameters
            .filter((p) => p.in === where)
            .map((p) => ({
              name: p.name,
              schema: p.schema,
              required: Boolean(p.required) && p.schema.default === undefined,
            }));
        const responses = new Map<number, JsonSchema | null>();
        const textResponses = new Map<number, string>();
        for (const [status, described] of Object.entries(operation.responses ?? {})) {
          const schema = described.content?.['application/json']?.schema;
          responses.set(Number(status), schema ? resolve(schema) : null);
          // A text body (GET /metrics: Prometheus text; the preference pages: HTML).
          const text = Object.keys(described.content ?? {}).find((media) => media.startsWith('text/'));
          if (text) textResponses.set(Number(status), text);
        }
        const errorSchemas = [...responses.entries()].filter(([status]) => status >= 400).map(([, schema]) => schema);
        const short = errorSchemas.some((schema) => schema?.properties && !('error_code' in schema.properties));
        const fail = errorSchemas.some((schema) => schema?.properties && 'status' in schema.properties);
        const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
        const publicRoute = Array.isArray(operation.security) && operation.security.length === 0;
        // The in-app feed authenticates with a public key and a user token, the older inbox API with the
        // workspace key and a subscriber id the inbox secret signs (test/inbox/).
        const inboxRoute =
          Array.isArray(operation.security) &&
          /InboxUserToken|InboxWorkspaceKey/.test(JSON.stringify(operation.security));
        // The CLI's bridge call sits beside the base surface but takes a service token.
        const serviceTokenRoute =
          Array.isArray(operation.security) && JSON.stringify(operation.security).includes('ServiceToken');
        const fullPath = `${prefix}${path}`;
        routes.push({
          surface: publicRoute ? 'public' : inboxRoute ? 'inbox' : prefix || serviceTokenRoute ? 'management' : 'base',
          method: method.toUpperCase(),
          path: fullPath,
          operationId: operation.operationId ?? `${method} ${fullPath}`,
          params: inputs('path'),
          query: inputs('query'),
          body: bodySchema ? resolve(bodySchema) : undefined,
          bodyRequired: Boolean(operation.requestBody?.required),
          responses,
          textResponses,
          errorShape: fail ? 'fail' : short ? 'short' : 'full',
          label: `${method.toUpperCase()} ${fullPath}`,
        });
      }
    }
  }
  return routes;
}

const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
addFormats(ajv);
const validators = new WeakMap<JsonSchema, ValidateFunction>();
const FULL_KEYS = ['code', 'detail', 'error_code', 'message', 'type'];
const SHORT_KEYS = ['code', 'message'];
const FAIL_KEYS = ['message', 'status'];

export interface Answer {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

/**
 * What is wrong with an answer, judged by the route's own documentation: a 5xx; a status it does not
 * document; an error body not exactly in its documented shape; a success body its schema rejects.
 * Undefined when the answer is as documented.
 */
export function problemWith(route: CatalogueRoute, answer: Answer): string | undefined {
  const { statusCode } = answer;
  if (statusCode >= 500) return `${statusCode}: ${answer.body.slice(0, 500)}`;
  if (!route.responses.has(statusCode)) return `undocumented status ${statusCode}: ${answer.body.slice(0, 300)}`;
  const text = route.textResponses.get(statusCode);
  if (text)
    return String(answer.headers['content-type'] ?? '').startsWith(text)
      ? undefined
      : `${statusCode} is documented as ${text}, got ${answer.headers['content-type']}`;
  const schema = route.responses.get(statusCode)!;
  if (schema === null)
    return answer.body === '' ? undefined : `${statusCode} documented without a body, got ${answer.body.slice(0, 200)}`;
  if (!/^application\/([\w.-]+\+)?json\b/.test(String(answer.headers['content-type'] ?? '')))
    return `${statusCode} is not JSON: ${answer.headers['content-type']}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return `${statusCode} body is not JSON: ${answer.body.slice(0, 200)}`;
  }
  if (statusCode >= 400) {
    const keys = body && typeof body === 'object' ? Object.keys(body).sort() : [];
    const expected = route.errorShape === 'fail' ? FAIL_KEYS : route.errorShape === 'short' ? SHORT_KEYS : FULL_KEYS;
    if (keys.join() !== expected.join())
      return `${statusCode} error body is not the ${route.errorShape} shape: ${answer.body.slice(0, 300)}`;
    if (route.errorShape !== 'fail' && (body as { code: unknown }).code !== statusCode)
      return `${statusCode} error body carries code ${(body as { code: unknown }).code}`;
  }
  const validate = validators.get(schema) ?? ajv.compile(schema);
  validators.set(schema, validate);
  if (!validate(body))
    return `${statusCode} body does not match its schema (${ajv.errorsText(validate.errors)}): ${answer.body.slice(0, 300)}`;
  return undefined;
}
