import fc, { type Arbitrary } from 'fast-check';
import type { JsonSchema } from './routes.js';

/** Values worth trying for a field or parameter of that name (ids seen in responses, the fixture's slug). */
export type Known = (name: string) => string[];

const MAX_DEPTH = 8;

/** A value serialized as raw JSON text: nesting too deep for JSON.stringify to write. */
const DEEP = '\u0001deep:';
export const deeplyNested = (levels: number) => `${DEEP}${levels}\u0001`;
/** JSON text of a generated value, deep-nesting markers expanded. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(
    /"\\u0001deep:(\d+)\\u0001"/g,
    (_, levels: string) => '['.repeat(Number(levels)) + ']'.repeat(Number(levels)),
  );
}

function typesOf(schema: JsonSchema): string[] {
  if (schema.type) return [schema.type].flat();
  if (schema.properties || schema.required || schema.additionalProperties !== undefined || schema.patternProperties)
    return ['object'];
  if (schema.items) return ['array'];
  if (schema.minLength !== undefined || schema.maxLength !== undefined || schema.pattern || schema.format)
    return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

const bounds = (schema: JsonSchema, integer: boolean) => {
  const step = integer ? 1 : Number.EPSILON;
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + step : -1_000_000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - step : 1_000_000);
  return { min: Math.max(min, -Number.MAX_SAFE_INTEGER), max: Math.min(max, Number.MAX_SAFE_INTEGER) };
};

/**
 * Realistic values for fields whose meaning a schema cannot say (a format checked by the handler):
 * tried alongside generated strings, so that generated requests also get past semantic validation.
 */
const HINTS: [RegExp, string[]][] = [
  [/email/i, ['ada@example.com', 'grace.hopper@example.org', 'ops+alerts@example.net']],
  [/^\$?(sms|whatsapp|phone)/i, ['+14155550123', '+442071838750', '+919812345678']],
  [/timezone/i, ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata']],
  [/locale|language/i, ['en', 'fr', 'es-MX', 'de-DE']],
  [/color/i, ['#1a2b3c', '#ffffff', '#000']],
  [/url|link|logo|website|domain/i, ['https://example.com/', 'https://cdn.example.com/logo.png']],
  [/^(slug|workflow|category)$/i, ['welcome-email', 'billing_alerts', 'digest']],
  [/^\$(androidpush|iospush|inbox)$/, ['device-token-0f1e2d3c', 'inbox-subscriber-1']],
  [/locale_file|filename/i, ['fr.json', 'es-MX.json', 'auth.en.json']],
];

function hinted(name: string | undefined): string[] {
  if (!name) return [];
  return HINTS.filter(([pattern]) => pattern.test(name)).flatMap(([, values]) => values);
}

/** The same for channel entries that are objects (docs/spec/compat.md: `$webpush`, `$slack`, `$ms_teams`). */
const OBJECT_HINTS: Record<string, unknown[]> = {
  $webpush: [
    {
      endpoint: 'https://push.example.com/send/abc',
      keys: {
        p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
        auth: 'tBHItJI5svbpez7KI4CCXg',
      },
    },
  ],
  $slack: [{ access_token: 'xoxb-123-456-abc', email: 'ada@example.com' }],
  $ms_teams: [{ tenant_id: 't-1', service_url: 'https://smba.trafficmanager.net/amer/', conversation_id: 'c-1' }],
};

function validString(schema: JsonSchema, name: string | undefined, known: Known): Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Number.MAX_SAFE_INTEGER;
  const fit = (s: string) => (s.length > max ? s.slice(0, max) : s);
  let base: Arbitrary<string>;
  switch (schema.format) {
    case 'date-time':
      base = fc
        .date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true })
        .map((d) => d.toISOString());
      break;
    case 'date':
      base = fc
        .date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
      break;
    case 'email':
      base = fc.emailAddress();
      break;
    case 'hostname':
      base = fc.domain();
      break;
    case 'uri':
    case 'url':
      base = fc.webUrl();
      break;
    case 'uuid':
      base = fc.uuid();
      break;
    default:
      base = schema.pattern
        ? safeStringMatching(schema.pattern).map(fit)
        : fc.string({ minLength: min, maxLength: Math.min(max, min + 24), unit: 'grapheme' });
  }
  const seen = name ? known(name) : [];
  const hints = hinted(name);
  // A hinted field gets realistic values only (hostile ones come from `hostile`); others mostly reuse what was seen.
  return fc.oneof(
    ...(hints.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...hints) }] : [{ weight: 2, arbitrary: base }]),
    ...(seen.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...seen) }] : []),
  );
}

function safeStringMatching(pattern: string): Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern));
  } catch {
    return fc.string({ maxLength: 24 });
  }
}

/** Values the schema accepts (as far as a generator can tell: patterns and lengths may still clash). */
export function valid(schema: JsonSchema, known: Known, name?: string, depth = 0): Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  const objectHints = name ? OBJECT_HINTS[name] : undefined;
  if (objectHints && !typesOf(schema).includes('array')) return fc.constantFrom(...objectHints);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return fc.oneof(...union.map((option) => valid(option, known, name, depth)));
  if (schema.allOf) return valid(Object.assign({}, ...schema.allOf) as JsonSchema, known, name, depth);
  const types = typesOf(schema);
  if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
  if (types.length > 1) return fc.oneof(...types.map((type) => valid({ ...schema, type }, known, name, depth)));
  switch (types[0]) {
    case 'string':
      return validString(schema, name, known);
    case 'integer':
      return fc.integer(bounds(schema, true));
    case 'number':
      return fc.double({ ...bounds(schema, false), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayOf(schema, (items) => valid(items, known, name, depth + 1));
    default:
      return objectOf(schema, known, depth, (child, key) => valid(child, known, key, depth + 1));
  }
}

function arrayOf(schema: JsonSchema, item: (items: JsonSchema) => Arbitrary<unknown>): Arbitrary<unknown[]> {
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.min(schema.maxItems ?? minLength + 4, minLength + 4);
  const items = item(schema.items ?? {});
  return schema.uniqueItems
    ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
    : fc.array(items, { minLength, maxLength });
}

function objectOf(
  schema: JsonSchema,
  known: Known,
  depth: number,
  child: (schema: JsonSchema, key: string) => Arbitrary<unknown>,
): Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const keys = Object.keys(properties);
  const record = fc.record(Object.fromEntries(keys.map((key) => [key, child(properties[key]!, key)])), {
    requiredKeys: (schema.required ?? []).filter((key) => keys.includes(key)),
  });
  const extra = schema.additionalProperties;
  const free = extra === true || (extra === undefined && keys.length === 0 && !schema.patternProperties);
  const patterns = Object.entries(schema.patternProperties ?? {});
  const extras: Arbitrary<Record<string, unknown>>[] = [];
  if (typeof extra === 'object')
    extras.push(fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), child(extra, ''), { maxKeys: 3 }));
  if (free)
    extras.push(
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    );
  for (const [pattern, value] of patterns)
    extras.push(fc.dictionary(safeStringMatching(pattern), child(value, ''), { maxKeys: 3 }));
  if (extras.length === 0 || depth > MAX_DEPTH) return record;
  return fc
    .tuple(record, ...extras)
    .map(([base, ...more]) => Object.assign({}, ...more, base) as Record<string, unknown>);
}

/** Strings that have broken parsers, encoders, databases and log lines. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\t',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\u202eevil',
  '\ufeffbom',
  'zero\u200bwidth',
  '😀'.repeat(8),
  'Ω≈ç√∫',
  'ǅǈ',
  'e\u0301\u0301\u0301',
  '\r\nX-Injected: 1',
  '\\',
  '"',
  "'",
  "' or '1'='1",
  "'; drop table users; --",
  '%00',
  '%',
  '%zz',
  '../../etc/passwd',
  '..',
  '.',
  '/',
  '//',
  '?',
  '#',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  'NaN',
  'Infinity',
  '1e309',
  '9007199254740993',
  '__proto__',
  'constructor',
  ' leading',
  'trailing ',
  'UPPER',
  'ws_key_00000000000000000000000000',
];

const hugeString = fc
  .tuple(fc.constantFrom(1_025, 70_000, 300_000, 1_100_000), fc.constantFrom('x', 'é', '😀', '\u0000', ' '))
  .map(([length, unit]) => unit.repeat(length));

const protoPolluters = fc.constantFrom(
  JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
  JSON.parse('{"constructor": {"prototype": {"polluted": true}}}') as unknown,
);

const deep = fc.constantFrom(65, 200, 5_000, 100_000).map(deeplyNested);

const otherTypes = fc.constantFrom<unknown>(
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  true,
  false,
  null,
  '',
  'x',
  [],
  [1, 'a'],
  {},
  { a: 1 },
);

/** Built once: constructing a binary-unit string arbitrary maps the whole code point range (~250 ms). */
const binaryString = fc.string({ unit: 'binary', maxLength: 64 });

/** A value meant to be refused (or survived) where `schema` is expected. */
export function hostile(schema: JsonSchema, known: Known, name?: string): Arbitrary<unknown> {
  const types = typesOf(schema);
  const options: Arbitrary<unknown>[] = [
    otherTypes,
    fc.constantFrom(...NASTY_STRINGS),
    hugeString,
    deep,
    protoPolluters,
  ];
  if (types.includes('string')) {
    const max = schema.maxLength;
    if (max !== undefined) options.push(fc.constantFrom('y'.repeat(max + 1), '😀'.repeat(max + 1)));
    if ((schema.minLength ?? 0) > 0) options.push(fc.constant('z'.repeat(schema.minLength! - 1)));
    options.push(binaryString);
  }
  if (types.includes('integer') || types.includes('number')) {
    const { min, max } = bounds(schema, types.includes('integer'));
    options.push(
      fc.constantFrom<unknown>(min - 1, max + 1, min - 0.5, 2 ** 53, -(2 ** 63), 1e308, -0, '1', 'abc', '0x10', '1e3'),
    );
  }
  if (types.includes('array')) {
    const over = (schema.maxItems ?? 1000) + 1;
    options.push(
      valid(schema.items ?? {}, known, name, MAX_DEPTH).map((item) => Array.from({ length: over }, () => item)),
    );
    options.push(fc.constant(Array.from({ length: 20_000 }, (_, i) => i)));
    options.push(fc.array(hostile(schema.items ?? {}, known, name), { minLength: 1, maxLength: 3 }));
  }
  if (types.includes('object')) {
    const required = schema.required ?? [];
    // Only the object branch of the schema (it may also allow null or other types).
    const sample = valid({ ...schema, type: 'object' }, known, name, MAX_DEPTH).map((value) =>
      value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {},
    );
    if (required.length > 0)
      options.push(fc.tuple(sample, fc.constantFrom(...required)).map(([value, key]) => omit(value, key)));
    options.push(
      fc
        .tuple(sample, fc.string({ minLength: 1, maxLength: 16 }), fc.jsonValue({ maxDepth: 2 }))
        .map(([value, key, extra]) => ({ ...value, [`x_${key}`]: extra })),
    );
    options.push(
      sample.map((value) =>
        Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' ? '\u0000' : v])),
      ),
    );
  }
  return fc.oneof(...options);
}

const omit = (value: Record<string, unknown>, key: string) =>
  Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));

/**
 * Mostly well-formed values with a mutation somewhere inside: at each node, one time in `rate`
 * the node itself is replaced by a hostile value; otherwise its children are generated the same way.
 */
export function mutated(schema: JsonSchema, known: Known, name?: string, depth = 0, rate = 6): Arbitrary<unknown> {
  const types = typesOf(schema);
  const structured =
    !schema.enum &&
    !schema.const &&
    !schema.anyOf &&
    !schema.oneOf &&
    types.length === 1 &&
    (types[0] === 'object' || types[0] === 'array');
  const node =
    structured && depth < MAX_DEPTH
      ? types[0] === 'array'
        ? arrayOf(schema, (items) => mutated(items, known, name, depth + 1, rate))
        : objectOf(schema, known, depth, (child, key) => mutated(child, known, key, depth + 1, rate))
      : valid(schema, known, name, depth);
  return fc.oneof({ weight: rate - 1, arbitrary: node }, { weight: 1, arbitrary: hostile(schema, known, name) });
}
