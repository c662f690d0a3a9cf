import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../support/app.js';
import { createPrivateDatabase, type PrivateDatabase } from '../support/private-database.js';
import { watchRowChanges } from '../support/row-changes.js';
import { assertNoCredentialsInLogs } from '../support/secrets.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { recordFigures } from '../support/figures.js';
import { authFor, KnownValues, requestArbitrary, type FuzzRequest } from '../support/fuzz.js';
import { problemWith, routeCatalogue, type CatalogueRoute } from '../support/routes.js';
import { signedAuthSupported } from '../support/signed-probe.js';
import { signedHeaders } from '../support/signing.js';
import {
  ACCOUNT_TABLES,
  changedTables,
  tablesWithScope,
  workspaceFingerprint,
  type Scope,
} from '../support/workspace-scope.js';

const SEED_ATTEMPTS_PER_ROUTE = 15;
const ATTACKS_PER_ROUTE = 12;
const nothingKnown = () => [];

/** One workspace as the matrix sees it: its credentials, the identifiers its data answers to, and a tag in all it stored. */
interface Tenant {
  ws: WorkspaceFixture;
  tag: string;
  known: KnownValues;
  /** Long strings only this workspace's answers contained (server-made ids, creation times and the like). */
  own: Set<string>;
}

const decoded = (request: FuzzRequest) => {
  let url = request.url;
  try {
    url = decodeURIComponent(request.url);
  } catch {
    // Malformed escapes stay as sent.
  }
  return `${url} ${request.payload ?? ''}`;
};

/**
 * What an answer reveals of `victim`: strings the victim stored that the attacker never sent itself
 * (an attacker may name its own resources after the victim's ids: those come back legitimately).
 */
function leaks(body: string, sent: string, victim: Tenant): string[] {
  const tagged = [...body.matchAll(new RegExp(`${victim.tag}[A-Za-z0-9_-]*`, 'g'))].map((m) => m[0]);
  const owned = [...victim.own].filter((value) => body.includes(value));
  return [...tagged, ...owned].filter((value) => !sent.includes(value));
}

describe('isolation between workspaces, on every route of both surfaces', { timeout: 300_000 }, () => {
  // A database of its own, so that a counter of committed row changes can stand in for a fingerprint
  // of the victim's rows while it has not moved (test/support/row-changes.ts): the comparison per
  // request stays as strict, and costs a fingerprint only after a write.
  let database: PrivateDatabase;
  let testApp: TestApp;
  const t = () => testApp;
  let rowChanges: () => Promise<number>;
  const fingerprints = new Map<number, { changes: number; rows: Awaited<ReturnType<typeof workspaceFingerprint>> }>();
  async function victimFingerprint(workspaceId: number) {
    const changes = await rowChanges();
    const known = fingerprints.get(workspaceId);
    if (known?.changes === changes) return known.rows;
    const rows = await workspaceFingerprint(t().db, workspaceId, tables, false);
    fingerprints.set(workspaceId, { changes, rows });
    return rows;
  }
  let a: Tenant;
  let b: Tenant;
  let routes: CatalogueRoute[];
  let tables: { table: string; scope: Scope }[];
  let signed = false;
  const figures = {
    routes_attacked: 0,
    requests: 0,
    answered_2xx: 0,
    answered_401: 0,
    answered_404: 0,
    answered_other_4xx: 0,
    victim_rows_changed: 0,
    leaks: 0,
  };

  /** Drives every route of the workspace with valid generated requests (ids reused, strings tagged), twice over. */
  async function seed(ws: WorkspaceFixture, tag: string): Promise<Tenant> {
    const defaultPair = await t()
      .db.selectFrom('workspace_keys')
      .select('id')
      .where('workspace_id', '=', ws.workspaceId)
      .where('is_default', '=', true)
      .executeTakeFirstOrThrow();
    // The workspace's own credentials stay usable: never disabled, paused or rotated by the seeding.
    const known = new KnownValues(new Set([ws.apiKeyId, defaultPair.id]));
    known.add('workspace', ws.slug);
    const lookup = (name: string) => [...known.lookup(name), `${tag}${name.replace(/[^a-z]/gi, '').slice(0, 12)}`];
    const own = new Set<string>();
    for (let pass = 0; pass < 2; pass += 1) {
      for (const route of routes.filter((r) => r.method !== 'DELETE')) {
        const requests = fc.sample(
          requestArbitrary(route, lookup, authFor(route, ws), 'valid'),
          SEED_ATTEMPTS_PER_ROUTE,
        );
        for (const request of requests) {
          const answer = await t().app.inject(request);
          expect(problemWith(route, answer), `${route.label} seeding`).toBeUndefined();
          if (answer.statusCode < 300 && answer.body) {
            const body = JSON.parse(answer.body);
            known.harvest(body);
            collectStrings(body, own);
          }
        }
      }
    }
    return { ws, tag, known, own };
  }

  const collectStrings = (value: unknown, into: Set<string>) => {
    const stack = [value];
    while (stack.length > 0) {
      const current = stack.pop();
      // Long strings: server-made ids, and timestamps (to the millisecond, no two workspaces' rows share one).
      if (typeof current === 'string' && current.length >= 16) into.add(current);
      else if (current && typeof current === 'object') {
        // A refused item of a bulk answer (207) is the server's own wording, as its 4xx would be: not data.
        const itemStatus = (current as { status_code?: unknown }).status_code;
        if (typeof itemStatus === 'number' && itemStatus >= 300) continue;
        // Validation messages (a workflow's `validation_result`, a template's pre-commit `errors`) are the server's
        // own wording, the same for every workspace: not data. A workspace's tagged values in them are still caught.
        stack.push(
          ...Object.entries(current)
            .filter(([key]) => key !== 'validation_result' && key !== 'errors')
            .map(([, v]) => v),
        );
      }
    }
  };

  beforeAll(async () => {
    database = await createPrivateDatabase();
    testApp = await buildTestApp(database.url ? { DATABASE_URL: database.url } : {}, {
      // The durable queue (no worker) registers the trigger and broadcast routes, which then join in.
      engine: { worker: false },
    });
    rowChanges = await watchRowChanges(testApp.db);
    routes = (await routeCatalogue(t().app)).filter(
      (route) =>
        route.surface !== 'public' && (route.surface === 'base' || route.params.some((p) => p.name === 'workspace')),
    );
    tables = await tablesWithScope(t().db);
    const [wsA, wsB] = [await createWorkspaceFixture(t()), await createWorkspaceFixture(t())];
    a = await seed(wsA, 'qaa');
    b = await seed(wsB, 'qbb');
    // Strings both answered (the default tenant's name, say) belong to neither.
    for (const value of [...a.own]) {
      if (!b.own.has(value)) continue;
      a.own.delete(value);
      b.own.delete(value);
    }
    signed = await signedAuthSupported((options) => t().app.inject(options), {
      key: wsA.workspaceKey,
      secret: wsA.workspaceSecret,
    });
  }, 300_000);

  afterAll(async () => {
    await testApp?.close();
    await database?.drop();
    if (testApp) assertNoCredentialsInLogs(testApp.logs);
    recordFigures('isolation', { ...figures, signed_workspace_key_tested: signed });
  });

  it('can tell which workspace every row of workspace data belongs to (workspace_id, or a required key to a row that has one)', () => {
    const unscoped = tables.filter((table) => !table.scope && !ACCOUNT_TABLES.includes(table.table));
    expect(unscoped.map((table) => table.table)).toEqual([]);
  });

  /** Sends each request as `attacker`, and requires the victim's rows unchanged and nothing of the victim's in any answer. */
  /** Everything the attacker has sent so far, decoded. */
  let sent = '';
  async function attack(route: CatalogueRoute, requests: FuzzRequest[], victim: Tenant) {
    for (const request of requests) {
      sent += ` ${decoded(request)}`;
      const before = await victimFingerprint(victim.ws.workspaceId);
      const answer = await t().app.inject(request);
      const after = await victimFingerprint(victim.ws.workspaceId);
      figures.requests += 1;
      const status = answer.statusCode;
      if (status < 300) figures.answered_2xx += 1;
      else if (status === 401) figures.answered_401 += 1;
      else if (status === 404) figures.answered_404 += 1;
      else figures.answered_other_4xx += 1;
      const label = `${route.label} ${request.method} ${request.url.slice(0, 200)}`;
      expect(problemWith(route, answer), label).toBeUndefined();
      const changed = changedTables(before, after);
      figures.victim_rows_changed += changed.length;
      expect(changed, `${label} changed the other workspace's rows`).toEqual([]);
      const leaked = leaks(answer.body, sent, victim);
      figures.leaks += leaked.length;
      expect(leaked, `${label} revealed the other workspace's data`).toEqual([]);
    }
  }

  it("base surface: A's API key (and signed A key pair, once supported) aimed at B's identifiers reaches nothing of B's", async () => {
    const base = routes.filter((route) => route.surface === 'base');
    expect(base.length).toBeGreaterThan(0);
    for (const route of base) {
      figures.routes_attacked += 1;
      // B's identifiers in the path; the body carries nothing of either workspace, so whatever of B's comes back leaked.
      const requests = fc.sample(
        requestArbitrary(route, nothingKnown, a.ws.base, 'valid', b.known.lookup),
        ATTACKS_PER_ROUTE,
      );
      await attack(route, requests, b);
      if (signed) {
        const pair = { key: a.ws.workspaceKey, secret: a.ws.workspaceSecret };
        const sign = (request: FuzzRequest) =>
          signedHeaders({
            ...pair,
            method: request.method,
            url: request.url,
            body: request.payload,
            contentType: request.headers['content-type'],
          });
        await attack(
          route,
          requests.map((request) => ({ ...request, headers: sign(request) })),
          b,
        );
      }
    }
  });

  it("management surface: A's identifiers under B's slug resolve to nothing of A's (tokens are account-wide; the slug scopes)", async () => {
    const management = routes.filter(
      (route) => route.surface === 'management' && route.params.some((p) => p.name !== 'workspace'),
    );
    for (const route of management) {
      figures.routes_attacked += 1;
      const underB = (name: string) => (name === 'workspace' ? [b.ws.slug] : a.known.lookup(name));
      const requests = fc.sample(
        requestArbitrary(route, nothingKnown, a.ws.management, 'valid', underB),
        ATTACKS_PER_ROUTE,
      );
      await attack(
        route,
        requests.filter((request) => request.url.includes(`/${b.ws.slug}/`)),
        a,
      );
    }
  });
});
