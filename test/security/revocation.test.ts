import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { revokeServiceToken } from '../../src/repositories/service-tokens.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { recordFigures } from '../support/figures.js';
import { runLoad, sleep } from '../support/load.js';
import { routeCatalogue, type CatalogueRoute } from '../support/routes.js';
import { signedAuthSupported } from '../support/signed-probe.js';
import { signedHeaders } from '../support/signing.js';

const WORKERS = 10;
const PROBE = '/v1/user/revocation-probe/';

describe('revocation is immediate, even under load', () => {
  const t = useTestApp();
  let catalogue: CatalogueRoute[];
  let signed = false;
  const figures = {
    revocations: 0,
    requests_under_load: 0,
    requests_after_revocation: 0,
    accepted_after_revocation: 0,
  };
  beforeAll(async () => {
    catalogue = await routeCatalogue(t().app);
    const ws = await createWorkspaceFixture(t());
    signed = await signedAuthSupported((options) => t().app.inject(options), {
      key: ws.workspaceKey,
      secret: ws.workspaceSecret,
    });
  });
  afterAll(() => recordFigures('revocation', { ...figures, signed_workspace_key_cases: signed }));

  /**
   * Revokes a service token the way `herald service-token revoke` does. Builds with the in-process
   * credential cache revoke through revokeServiceTokenEverywhere (row, NOTIFY and this instance's
   * entries at once; the module is looked up at run time, as older builds do not have it); older
   * builds update the row, which every request reads.
   */
  async function revokeAsTheCliDoes(token: string): Promise<unknown> {
    const path = ['..', '..', 'src', 'services', 'credential-changes.js'].join('/');
    const changes = (await import(/* @vite-ignore */ path).catch(() => undefined)) as
      | { revokeServiceTokenEverywhere?: (db: unknown, cache: unknown, idOrToken: string) => Promise<unknown> }
      | undefined;
    if (changes?.revokeServiceTokenEverywhere)
      return changes.revokeServiceTokenEverywhere(
        t().db,
        (t().app as unknown as { credentials?: unknown }).credentials,
        token,
      );
    return revokeServiceToken(t().db, token);
  }

  const hasRoute = (method: string, path: string) =>
    catalogue.some((route) => route.method === method && route.path === `/management${path}`);

  /**
   * WORKERS clients use the credential in a loop; mid-way it is revoked. Every request sent after
   * the revocation returned is refused with 401; requests before it were accepted.
   */
  async function revokeUnderLoad(send: () => Promise<number>, revoke: () => Promise<void>) {
    const began = Date.now();
    const clock = () => Date.now() - began;
    let revokingAt = Infinity;
    let revokedAt = Infinity;
    let stop = false;
    let completed = 0;
    let startedAfter = 0;
    const load = runLoad({
      workers: WORKERS,
      stop: () => stop,
      clock,
      send: async () => {
        if (clock() > revokedAt) startedAfter += 1;
        const status = await send();
        completed += 1;
        return { label: 'use', status, body: null, headers: {} };
      },
    });
    const until = async (condition: () => boolean, what: string) => {
      const deadline = Date.now() + 15_000;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await sleep(10);
      }
    };
    try {
      // Revoke once the credential is demonstrably in use, keep the load on until plenty came after.
      await until(() => completed >= 3 * WORKERS, 'the load to start');
      revokingAt = clock();
      await revoke();
      revokedAt = clock();
      // The very next request, from this caller, is refused.
      expect(await send()).toBe(401);
      await until(() => startedAfter >= 5 * WORKERS, 'requests after the revocation');
    } finally {
      stop = true;
    }
    const samples = await load;
    const before = samples.filter((s) => s.end < revokingAt);
    const after = samples.filter((s) => s.start > revokedAt);
    figures.revocations += 1;
    figures.requests_under_load += samples.length;
    figures.requests_after_revocation += after.length;
    figures.accepted_after_revocation += after.filter((s) => s.status !== 401).length;
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((s) => s.status === 401)).toEqual([]);
    expect(after.length).toBeGreaterThan(WORKERS);
    expect(after.filter((s) => s.status !== 401).map((s) => s.status)).toEqual([]);
  }

  it('a disabled API key', async () => {
    const ws = await createWorkspaceFixture(t());
    const send = async () => (await t().app.inject({ method: 'GET', url: PROBE, headers: ws.base })).statusCode;
    await revokeUnderLoad(send, async () => {
      // Through the management API where the app has it; otherwise as it would, in the database.
      if (hasRoute('DELETE', '/v1/{workspace}/ws_api_key/{api_key_id}/')) {
        const response = await t().app.inject({
          method: 'DELETE',
          url: `/management/v1/${ws.slug}/ws_api_key/${ws.apiKeyId}/`,
          headers: ws.management,
        });
        expect(response.statusCode).toBe(204);
      } else {
        await t()
          .db.updateTable('api_keys')
          .set({ deleted_at: sql<Date>`now()` })
          .where('id', '=', ws.apiKeyId)
          .execute();
      }
    });
  });

  it('a revoked service token', async () => {
    const ws = await createWorkspaceFixture(t());
    const send = async () =>
      (await t().app.inject({ method: 'GET', url: `/management/v1/${ws.slug}/ws_key/`, headers: ws.management }))
        .statusCode;
    await revokeUnderLoad(send, async () => {
      expect(await revokeAsTheCliDoes(ws.serviceToken)).toBeTruthy();
    });
  });

  /** Signed-key cases need signature auth (#4) and the workspace-key management routes. */
  const pairRoutes = () =>
    hasRoute('POST', '/v1/{workspace}/ws_key/') &&
    hasRoute('PATCH', '/v1/{workspace}/ws_key/{id}/') &&
    hasRoute('DELETE', '/v1/{workspace}/ws_key/{id}/') &&
    hasRoute('POST', '/v1/{workspace}/ws_key/{id}/rotate/');
  const requireSigned = (context: TestContext) => {
    if (!signed || !pairRoutes()) context.skip('signed workspace-key auth and the ws_key routes are not in this build');
  };
  async function newPair(ws: WorkspaceFixture) {
    const response = await t().app.inject({
      method: 'POST',
      url: `/management/v1/${ws.slug}/ws_key/`,
      headers: ws.management,
      payload: { name: `revocation-${Date.now()}` },
    });
    expect(response.statusCode).toBe(201);
    return response.json() as { id: string; key: string; secret: string };
  }
  const sendSigned = (pair: { key: string; secret: string }) => async () =>
    (
      await t().app.inject({
        method: 'GET',
        url: PROBE,
        headers: signedHeaders({ ...pair, method: 'GET', url: PROBE }),
      })
    ).statusCode;
  const manage = (ws: WorkspaceFixture, method: 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object) =>
    t().app.inject({
      method,
      url: `/management/v1/${ws.slug}/ws_key/${path}`,
      headers: ws.management,
      ...(payload ? { payload } : {}),
    });

  it('a paused workspace key pair', async (context) => {
    requireSigned(context);
    const ws = await createWorkspaceFixture(t());
    const pair = await newPair(ws);
    await revokeUnderLoad(sendSigned(pair), async () => {
      expect((await manage(ws, 'PATCH', `${pair.id}/`, { is_active: false })).statusCode).toBe(200);
    });
  });

  it('a deleted workspace key pair', async (context) => {
    requireSigned(context);
    const ws = await createWorkspaceFixture(t());
    const pair = await newPair(ws);
    await revokeUnderLoad(sendSigned(pair), async () => {
      expect((await manage(ws, 'DELETE', `${pair.id}/`)).statusCode).toBe(204);
    });
  });

  it('a rotated secret (the new one works at once)', async (context) => {
    requireSigned(context);
    const ws = await createWorkspaceFixture(t());
    const pair = await newPair(ws);
    let rotated = { key: pair.key, secret: pair.secret };
    await revokeUnderLoad(sendSigned(pair), async () => {
      const response = await manage(ws, 'POST', `${pair.id}/rotate/`);
      expect(response.statusCode).toBe(200);
      rotated = { key: pair.key, secret: response.json().secret };
    });
    expect(await sendSigned(rotated)()).toBe(404);
  });

  it('a signed request whose path, query or method was changed after signing is refused', async (context) => {
    requireSigned(context);
    const ws = await createWorkspaceFixture(t());
    const pair = { key: ws.workspaceKey, secret: ws.workspaceSecret };
    const signedFor = (method: string, url: string) => signedHeaders({ ...pair, method, url });
    const cases: [string, string, Record<string, string>][] = [
      ['path', '/v1/user/other/', signedFor('GET', PROBE)],
      ['query added', `${PROBE}?limit=1`, signedFor('GET', PROBE)],
      ['query changed', '/v1/user/?limit=2', signedFor('GET', '/v1/user/?limit=1')],
      ['method', PROBE, signedFor('DELETE', PROBE)],
    ];
    for (const [what, url, headers] of cases) {
      expect((await t().app.inject({ method: 'GET', url, headers })).statusCode, what).toBe(401);
    }
    expect((await t().app.inject({ method: 'GET', url: PROBE, headers: signedFor('GET', PROBE) })).statusCode).toBe(
      404,
    );
  });
});
