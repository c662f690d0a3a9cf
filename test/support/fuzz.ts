import fc, { type Arbitrary } from 'fast-check';
import type { TestApp } from './app.js';
import type { WorkspaceFixture } from './fixtures.js';
import { changedTables, tablesWithScope, workspaceFingerprint } from './workspace-scope.js';
import { watchRowChanges } from './row-changes.js';
import { problemWith, type CatalogueRoute, type RouteInput } from './routes.js';
import { hostile, mutated, NASTY_STRINGS, toJsonText, valid, type Known } from './schema-arbitrary.js';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Longest encoded path segment sent: the router refuses longer ones (414) before any route sees them. */
const MAX_SEGMENT = 1000;
/** Longest encoded query value sent: real clients cannot send more than Node's 16 KB of headers. */
const MAX_QUERY_VALUE = 4000;

/** Percent-encodes the UTF-8 bytes of a string (lone surrogates become U+FFFD, as on the wire). */
export function percentEncode(text: string): string {
  return encodeURIComponent(Buffer.from(text, 'utf8').toString('utf8')).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'));

/**
 * A path segment the router sees as one segment, at most MAX_SEGMENT long: never empty, and never
 * only dots (URL parsers resolve `.`/`..`, even percent-encoded, before any router sees them).
 */
function pathSegment(value: unknown): string {
  let text = asText(value);
  if (text === '') text = ' ';
  if (/^\.+$/.test(text)) text = `${text}_`;
  const encoded = percentEncode(text.slice(0, MAX_SEGMENT));
  return encoded.length <= MAX_SEGMENT ? encoded : percentEncode(text.slice(0, 120));
}

function queryPairs(name: string, value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.map((item) => {
    const text = item === null ? '' : asText(item);
    const encoded = percentEncode(text.slice(0, MAX_QUERY_VALUE));
    return `${percentEncode(name)}=${encoded.length <= MAX_QUERY_VALUE ? encoded : percentEncode(text.slice(0, 200))}`;
  });
}

/** `fuzz`: well-formed and hostile inputs mixed; `valid`: only what the schemas accept (seeding, load). */
export type InputMode = 'fuzz' | 'valid';

const inputValue = (input: RouteInput, known: Known, mode: InputMode) =>
  mode === 'valid'
    ? valid(input.schema, known, input.name)
    : fc.oneof(
        { weight: 5, arbitrary: valid(input.schema, known, input.name) },
        { weight: 2, arbitrary: hostile(input.schema, known, input.name) },
      );

const RAW_BODIES = [
  '',
  '{',
  '{"a":',
  'nul',
  '{"a":1}}',
  '['.repeat(100_000),
  '\u00ff\u00fe',
  'null',
  '1',
  '"text"',
  '[]',
  'true',
  '{"__proto__":{"x":1}}',
];
const OTHER_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16le',
  'application/jsonx',
  'multipart/form-data; boundary=x',
];

function bodyArbitrary(
  route: CatalogueRoute,
  known: Known,
  mode: InputMode,
): Arbitrary<{ payload?: string; contentType?: string }> {
  const json = (value: Arbitrary<unknown>) =>
    value.map((v) => ({ payload: toJsonText(v), contentType: 'application/json' }));
  if (mode === 'valid') return route.body ? json(valid(route.body, known)) : fc.constant({});
  const raw = fc.oneof(
    fc.constantFrom(...RAW_BODIES).map((payload) => ({ payload, contentType: 'application/json' })),
    fc
      .tuple(fc.constantFrom(...OTHER_CONTENT_TYPES), fc.constantFrom('{"a":1}', 'a=1', ''))
      .map(([contentType, payload]) => ({ payload, contentType })),
    fc.constant({}),
  );
  if (route.body) {
    return fc.oneof(
      { weight: 3, arbitrary: json(valid(route.body, known)) },
      { weight: 6, arbitrary: json(mutated(route.body, known)) },
      { weight: 1, arbitrary: raw },
    );
  }
  if (!BODY_METHODS.has(route.method)) return fc.constant({});
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: raw },
    { weight: 1, arbitrary: json(fc.jsonValue({ maxDepth: 3 })) },
  );
}

/** Requests for one route: path parameters, query and body generated from its schemas, then mutated. */
export function requestArbitrary(
  route: CatalogueRoute,
  known: Known,
  auth: Record<string, string>,
  mode: InputMode = 'fuzz',
  /** Where path parameters take known values from, when not `known` (the isolation matrix aims them elsewhere). */
  paramKnown: Known = known,
): Arbitrary<FuzzRequest> {
  const params = fc.record(Object.fromEntries(route.params.map((p) => [p.name, inputValue(p, paramKnown, mode)])));
  const documented = fc.tuple(
    ...route.query.map((input) =>
      (input.required && mode === 'valid'
        ? inputValue(input, known, mode)
        : fc.option(inputValue(input, known, mode), { nil: undefined, freq: input.required ? 10 : 2 })
      ).map((value) => (value === undefined ? [] : queryPairs(input.name, value))),
    ),
  );
  const undocumented =
    mode === 'valid'
      ? fc.constant([] as [string, string][])
      : fc.array(
          fc.tuple(
            fc.constantFrom('x', 'limit', 'offset', '__proto__', 'a[b]', ...NASTY_STRINGS.slice(0, 6)),
            fc.constantFrom(...NASTY_STRINGS),
          ),
          {
            maxLength: 2,
          },
        );
  return fc
    .tuple(params, documented, undocumented, bodyArbitrary(route, known, mode))
    .map(([paramValues, queryParts, extra, body]) => {
      const pairs = [...queryParts.flat(), ...extra.flatMap(([name, value]) => queryPairs(name, value))];
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => pathSegment(paramValues[name]));
      const headers: Record<string, string> = { ...auth };
      if (body.contentType) headers['content-type'] = body.contentType;
      return {
        method: route.method,
        url: pairs.length > 0 ? `${path}?${pairs.join('&')}` : path,
        headers,
        payload: body.payload,
      };
    });
}

/** Identifiers worth reusing, by field name: collected from fixtures and from every successful answer. */
export class KnownValues {
  readonly #values = new Map<string, Set<string>>();
  constructor(private readonly excluded: Set<string>) {}

  add(name: string, value: string) {
    if (this.excluded.has(value) || value.length > 200) return;
    const set = this.#values.get(name) ?? new Set();
    if (set.size < 50) set.add(value);
    this.#values.set(name, set);
  }

  /** Every string field of a JSON answer, under its own name (and `X_id` fields also as `id`). */
  harvest(body: unknown) {
    const stack = [body];
    while (stack.length > 0) {
      const value = stack.pop();
      if (!value || typeof value !== 'object') continue;
      for (const [key, child] of Object.entries(value)) {
        if (typeof child === 'string') this.add(key, child);
        else stack.push(child);
      }
    }
  }

  readonly lookup: Known = (name) => [
    ...(this.#values.get(name) ?? []),
    ...(name.endsWith('_id') ? (this.#values.get('id') ?? []) : []),
  ];
}

export const authFor = (route: CatalogueRoute, ws: WorkspaceFixture): Record<string, string> =>
  route.surface === 'base' ? ws.base : route.surface === 'management' ? ws.management : {};

export interface FuzzOutcome {
  cases: number;
  accepted: number;
  rejected: number;
  statuses: Record<number, number>;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const describeRequest = (request: FuzzRequest) =>
  `${request.method} ${request.url.slice(0, 300)} ${request.headers['content-type'] ?? ''} ${(request.payload ?? '').slice(0, 300)}`;

/**
 * Sends `runs` generated requests to one route (in a workspace of its own) and requires every answer
 * to be as the route documents it, within 10 s, and every refused request to leave every table as it was.
 */
export async function fuzzRoute(
  t: TestApp,
  catalogue: CatalogueRoute[],
  route: CatalogueRoute,
  ws: WorkspaceFixture,
  options: { runs: number; seed?: number },
): Promise<FuzzOutcome> {
  // The workspace's own API key stays out of the pool: disabling it would only test 401s from then on.
  const known = new KnownValues(new Set([ws.apiKeyId]));
  known.add('workspace', ws.slug);
  await seedFor(t, catalogue, route, ws, known);
  await harvestListings(t, catalogue, ws, known);
  const auth = authFor(route, ws);
  // Every row the route's workspace owns, and every row of the account-wide tables (the database is
  // the file's own, so nothing else writes to those): per request, in one statement.
  const tables = await tablesWithScope(t.db);
  // Recomputed only when a committed transaction changed a row since the last one (see row-changes.ts);
  // the counter is read first, so a write committing meanwhile moves it again for the next request.
  const rowChanges = await watchRowChanges(t.db);
  let seenChanges = await rowChanges();
  let current = await workspaceFingerprint(t.db, ws.workspaceId, tables);
  const fingerprint = async () => {
    const changes = await rowChanges();
    if (changes !== seenChanges) {
      seenChanges = changes;
      current = await workspaceFingerprint(t.db, ws.workspaceId, tables);
    }
    return current;
  };
  let before = current;
  const outcome: FuzzOutcome = { cases: 0, accepted: 0, rejected: 0, statuses: {} };
  await fc.assert(
    fc.asyncProperty(requestArbitrary(route, known.lookup, auth), async (request) => {
      const answer = await withTimeout(t.app.inject(request), 10_000, describeRequest(request));
      outcome.cases += 1;
      outcome.statuses[answer.statusCode] = (outcome.statuses[answer.statusCode] ?? 0) + 1;
      const problem = problemWith(route, { statusCode: answer.statusCode, body: answer.body, headers: answer.headers });
      if (problem) throw new Error(`${route.label}: ${problem}\n  request: ${describeRequest(request)}`);
      const after = await fingerprint();
      if (answer.statusCode >= 300) {
        outcome.rejected += 1;
        const changed = changedTables(before, after);
        if (changed.length > 0) {
          throw new Error(
            `${route.label}: refused with ${answer.statusCode} but changed ${changed.join(', ')}\n  request: ${describeRequest(request)}`,
          );
        }
      } else {
        outcome.accepted += 1;
        if (answer.body && isJson(answer.headers)) known.harvest(JSON.parse(answer.body));
      }
      before = after;
    }),
    { numRuns: options.runs, seed: options.seed },
  );
  return outcome;
}

const SEEDS_PER_ROUTE = 20;

/** Only JSON answers hold identifiers to harvest (GET /metrics answers Prometheus text, the preference pages HTML). */
const isJson = (headers: Record<string, unknown>) =>
  String(headers['content-type'] ?? '').startsWith('application/json');

/**
 * Gives the route something to act on: valid requests to every writing route (not DELETE) of its
 * surface whose path is a prefix of its own (POST /v1/user/{distinct_id}/ before PATCH on it, POST
 * …/{id}/ before …/{id}/subscription/), identifiers harvested from what they answer.
 */
export async function seedFor(
  t: TestApp,
  catalogue: CatalogueRoute[],
  route: CatalogueRoute,
  ws: WorkspaceFixture,
  known: KnownValues,
) {
  const prefixOf = (path: string) => path.replace(/\/$/, '');
  const seeders = catalogue.filter(
    (r) =>
      r.surface === route.surface &&
      ['POST', 'PUT', 'PATCH'].includes(r.method) &&
      `${prefixOf(route.path)}/`.startsWith(`${prefixOf(r.path)}/`),
  );
  for (const seeder of seeders) {
    for (const request of fc.sample(
      requestArbitrary(seeder, known.lookup, authFor(seeder, ws), 'valid'),
      SEEDS_PER_ROUTE,
    )) {
      const answer = await t.app.inject(request);
      if (answer.statusCode < 300 && answer.body && isJson(answer.headers)) known.harvest(JSON.parse(answer.body));
    }
  }
}

/** Harvests identifiers by listing what the workspace holds: every GET route whose parameters are all known. */
export async function harvestListings(t: TestApp, routes: CatalogueRoute[], ws: WorkspaceFixture, known: KnownValues) {
  for (const route of routes.filter(
    (r) => r.method === 'GET' && r.params.every((p) => known.lookup(p.name).length > 0),
  )) {
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => pathSegment(known.lookup(name)[0]));
    const answer = await t.app.inject({ method: 'GET', url: path, headers: authFor(route, ws) });
    // Only JSON answers hold identifiers (GET /metrics answers Prometheus text).
    if (answer.statusCode === 200 && isJson(answer.headers)) known.harvest(answer.json());
  }
}
