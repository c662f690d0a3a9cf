import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { buildTestApp, useTestApp, type TestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';
import { signedHeaders } from '../support/signing.js';
import { createServiceToken } from '../../src/repositories/service-tokens.js';
import { revokeServiceTokenEverywhere } from '../../src/services/credential-changes.js';
import { hashToken } from '../../src/crypto/tokens.js';

const onPostgres = Boolean(process.env.DATABASE_URL);

const getUser = (t: TestApp, headers: Record<string, string>) =>
  t.app.inject({ method: 'GET', url: '/v1/user/nobody/', headers });
const signed = (t: TestApp, key: string, secret: string) =>
  t.app.inject({
    method: 'GET',
    url: '/v1/user/nobody/',
    headers: signedHeaders({ key, secret, method: 'GET', url: '/v1/user/nobody/' }),
  });
const listKeys = (t: TestApp, ws: WorkspaceFixture, authorization = ws.management.authorization) =>
  t.app.inject({ method: 'GET', url: `/management/v1/${ws.slug}/ws_key/`, headers: { authorization } });
const manage = (
  t: TestApp,
  ws: WorkspaceFixture,
  method: 'POST' | 'PATCH' | 'DELETE',
  path: string,
  payload?: object,
) => t.app.inject({ method, url: `/management/v1/${ws.slug}/${path}`, headers: ws.management, payload });

/** Warms the cache with several requests and checks they were answered from it (no auth lookup sent). */
async function warm(t: TestApp, send: () => Promise<{ statusCode: number }>, status: number) {
  for (let i = 0; i < 3; i += 1) expect((await send()).statusCode).toBe(status);
  t.queries.reset();
  expect((await send()).statusCode).toBe(status);
  return t.queries.count;
}

/** Polls (no timing asserted) until `check` holds, for at most `ms`. */
async function eventually(check: () => Promise<boolean> | boolean, ms = 5_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('credential cache: changes take effect on the very next request', () => {
  const t = useTestApp();

  it('answers warm requests without the credential lookup', async () => {
    const ws = await createWorkspaceFixture(t());
    expect(t().app.credentials.active).toBe(true);
    // GET user on a warm cache: only the user query is sent.
    expect(await warm(t(), () => getUser(t(), ws.base), 404)).toBe(1);
  });

  it('refuses a disabled API key at once', async () => {
    const ws = await createWorkspaceFixture(t());
    await warm(t(), () => getUser(t(), ws.base), 404);
    expect((await manage(t(), ws, 'DELETE', `ws_api_key/${ws.apiKeyId}/`)).statusCode).toBe(204);
    expect((await getUser(t(), ws.base)).statusCode).toBe(401);
  });

  it('refuses the old secret of a rotated pair at once and accepts the new one', async () => {
    const ws = await createWorkspaceFixture(t());
    await warm(t(), () => signed(t(), ws.workspaceKey, ws.workspaceSecret), 404);
    const keys = (await listKeys(t(), ws)).json().results as { id: string }[];
    const rotated = await manage(t(), ws, 'POST', `ws_key/${keys[0]!.id}/rotate/`);
    expect(rotated.statusCode).toBe(200);
    expect((await signed(t(), ws.workspaceKey, ws.workspaceSecret)).statusCode).toBe(401);
    expect((await signed(t(), ws.workspaceKey, rotated.json().secret)).statusCode).toBe(404);
  });

  it('refuses a paused pair at once, a resumed one again, and a deleted one', async () => {
    const ws = await createWorkspaceFixture(t());
    const created = await manage(t(), ws, 'POST', 'ws_key/', { name: 'second' });
    expect(created.statusCode).toBe(201);
    const { id, key, secret } = created.json() as { id: string; key: string; secret: string };
    await warm(t(), () => signed(t(), key, secret), 404);
    expect((await manage(t(), ws, 'PATCH', `ws_key/${id}/`, { is_active: false })).statusCode).toBe(200);
    expect((await signed(t(), key, secret)).statusCode).toBe(401);
    expect((await manage(t(), ws, 'PATCH', `ws_key/${id}/`, { is_active: true })).statusCode).toBe(200);
    await warm(t(), () => signed(t(), key, secret), 404);
    expect((await manage(t(), ws, 'DELETE', `ws_key/${id}/`)).statusCode).toBe(204);
    expect((await signed(t(), key, secret)).statusCode).toBe(401);
  });

  it('refuses a revoked service token at once', async () => {
    const ws = await createWorkspaceFixture(t());
    const { id, token } = await createServiceToken(t().db, null);
    await warm(t(), () => listKeys(t(), ws, `ServiceToken ${token}`), 200);
    expect(await revokeServiceTokenEverywhere(t().db, t().app.credentials, id)).toBe(true);
    expect((await listKeys(t(), ws, `ServiceToken ${token}`)).statusCode).toBe(401);
  });
});

describe.runIf(onPostgres)('credential cache across instances sharing PostgreSQL', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    // Slow reconnection, so the test sees the disconnected state for as long as it needs.
    first = await buildTestApp({}, { credentialListener: { retryDelayMs: 60_000, maxRetryDelayMs: 60_000 } });
    second = await buildTestApp();
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('sees a key disabled, a secret rotated and a token revoked by another instance or the CLI', async () => {
    const ws = await createWorkspaceFixture(first);
    await warm(first, () => getUser(first, ws.base), 404);
    await warm(first, () => signed(first, ws.workspaceKey, ws.workspaceSecret), 404);
    await warm(first, () => listKeys(first, ws), 200);

    expect((await manage(second, ws, 'DELETE', `ws_api_key/${ws.apiKeyId}/`)).statusCode).toBe(204);
    await eventually(async () => (await getUser(first, ws.base)).statusCode === 401);

    const keys = (await listKeys(second, ws)).json().results as { id: string }[];
    expect((await manage(second, ws, 'POST', `ws_key/${keys[0]!.id}/rotate/`)).statusCode).toBe(200);
    await eventually(async () => (await signed(first, ws.workspaceKey, ws.workspaceSecret)).statusCode === 401);

    // As the CLI does it: no cache of its own, only the NOTIFY in its transaction.
    const tokenId = (
      await first.db
        .selectFrom('service_tokens')
        .select('id')
        .where('token_hash', '=', hashToken(ws.serviceToken))
        .executeTakeFirstOrThrow()
    ).id;
    expect(await revokeServiceTokenEverywhere(second.db, undefined, tokenId)).toBe(true);
    await eventually(async () => (await listKeys(first, ws)).statusCode === 401);
  });

  it('is bypassed while its listener is disconnected, and starts empty when it is back', async () => {
    const listener = first.app.credentialListener!;
    expect(listener.listening).toBe(true);
    const ws = await createWorkspaceFixture(first);
    expect(await warm(first, () => getUser(first, ws.base), 404)).toBe(1);

    await first.db.selectNoFrom(sql<boolean>`pg_terminate_backend(${listener.backendPid!})`.as('done')).execute();
    await eventually(() => !listener.listening);
    expect(first.app.credentials.active).toBe(false);
    // A change nobody announces (by hand in SQL): seen anyway, because every request looks up.
    await first.db.updateTable('api_keys').set({ deleted_at: new Date() }).where('id', '=', ws.apiKeyId).execute();
    first.queries.reset();
    expect((await getUser(first, ws.base)).statusCode).toBe(401);
    expect(first.queries.count).toBe(1);

    await listener.reconnect();
    expect(listener.listening).toBe(true);
    expect(first.app.credentials.active).toBe(true);
    expect(first.app.credentials.size).toBe(0);
    expect((await getUser(first, ws.base)).statusCode).toBe(401);
  });
});
