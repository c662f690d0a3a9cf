import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, useTestApp, type TestApp } from '../support/app.js';
import type { WorkspaceFixture } from '../support/fixtures.js';
import { configClient } from '../support/config.js';
import { engineWorkspace, inbox, liveWorkflow } from '../support/engine-drivers.js';
import { jobId } from '../../src/engine/job-ids.js';
import { QUEUES } from '../../src/engine/queue.js';

/**
 * The live workflow and the tenant a trigger names come from the API's cache (src/engine/intake.ts):
 * a warm trigger sends only its writes, and a workflow disabled, deleted or committed anew, or a
 * tenant deleted, is seen from the next request on: at once in the instance that made the change,
 * as soon as the NOTIFY arrives in the others.
 */

const onPostgres = Boolean(process.env.DATABASE_URL);

const send = (t: TestApp, ws: WorkspaceFixture, body: object) =>
  t.app.inject({ method: 'POST', url: '/trigger/', headers: ws.base, payload: body });
const status = async (t: TestApp, ws: WorkspaceFixture, body: object) => (await send(t, ws, body)).statusCode;
const manage = (t: TestApp, ws: WorkspaceFixture, method: 'PATCH' | 'DELETE', path: string, payload?: object) =>
  t.app.inject({ method, url: `/management/v1/${ws.slug}/${path}`, headers: ws.management, payload });
const base = (t: TestApp, ws: WorkspaceFixture, method: 'POST' | 'DELETE', path: string, payload?: object) =>
  t.app.inject({ method, url: path, headers: ws.base, payload });

async function warm(t: TestApp, ws: WorkspaceFixture, body: object) {
  for (let i = 0; i < 3; i += 1) expect(await status(t, ws, body)).toBe(202);
}

async function eventually(check: () => Promise<boolean>, ms = 5_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('trigger lookups from the cache: changes take effect on the very next trigger', () => {
  const t = useTestApp({}, { engine: { worker: false } });

  it('a warm trigger sends only its writes: no workflow, tenant or credential lookup', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'warm', [inbox()]);
    const body = { workflow: 'warm', recipients: ['ada'], data: {} };
    await warm(t(), ws, body);
    t().queries.reset();
    const accepted = await send(t(), ws, body);
    expect(accepted.statusCode).toBe(202);
    // One statement: the execution and its trigger job together, atomic without BEGIN and COMMIT; then,
    // outside it, the NOTIFY that wakes the workers (the trigger job's insert itself notifies no one).
    expect(t().queries.sql.filter((text) => /workflows|tenants/.test(text))).toEqual([]);
    // (The warm-up's last NOTIFY may land after the reset: at most one NOTIFY per 5 ms.)
    await eventually(async () => t().queries.sql.at(-1)?.startsWith('select pg_notify(') === true, 1_000);
    const writes = t().queries.sql.filter((text) => !text.startsWith('select pg_notify('));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^with herald_first as \(insert into executions/);
    expect(writes[0]).not.toMatch(/pg_notify/);
    const executionId = accepted.json().message_id as string;
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(`${t().engineRuntime!.schema}.job`)}
      where name = ${QUEUES.trigger} and id = ${jobId('trigger', executionId)}::uuid`.execute(t().db);
    expect(rows[0]!.n).toBe(1);
    expect(await t().db.selectFrom('executions').select('id').where('id', '=', executionId).executeTakeFirst()).toEqual(
      { id: executionId },
    );

    // A record that claims an idempotency key or stores an inline user takes a transaction of its own.
    t().queries.reset();
    expect(await status(t(), ws, { ...body, $idempotency_key: 'k-1' })).toBe(202);
    expect(t().queries.sql[0]).toBe('begin');
    expect(t().queries.sql.at(-2)).toMatch(/^select pg_notify\(/);
    expect(t().queries.sql.at(-1)).toBe('commit');
  });

  it('refuses a disabled workflow at once, accepts it enabled again, and pins a new commit at once', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'toggled', [inbox()]);
    const body = { workflow: 'toggled', recipients: ['ada'], data: {} };
    await warm(t(), ws, body);
    expect((await manage(t(), ws, 'PATCH', 'workflow/toggled/enable/', { is_enabled: false })).statusCode).toBe(202);
    const refused = await send(t(), ws, body);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ status: 'fail', message: "workflow 'toggled' not found" });
    expect((await manage(t(), ws, 'PATCH', 'workflow/toggled/enable/', { is_enabled: true })).statusCode).toBe(202);
    await warm(t(), ws, body);

    const config = configClient(t, ws);
    const saved = await config.postWorkflow('toggled', {
      name: 'toggled',
      category: 'order-updates',
      trigger_type: 'api',
      tree: { nodes: [inbox('second')] },
    });
    expect(saved.statusCode).toBe(201);
    expect((await config.commitWorkflow('toggled')).statusCode).toBe(202);
    const accepted = await send(t(), ws, body);
    expect(accepted.statusCode).toBe(202);
    const execution = await t()
      .db.selectFrom('executions')
      .select('version_no')
      .where('id', '=', accepted.json().message_id)
      .executeTakeFirstOrThrow();
    expect(execution.version_no).toBe(2);
  });

  it('refuses a deleted workflow and a deleted tenant at once', async () => {
    const ws = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'doomed', [inbox()]);
    await liveWorkflow(t, ws, 'kept', [inbox()]);
    expect((await base(t(), ws, 'POST', '/v1/tenant/acme/', { tenant_name: 'Acme' })).statusCode).toBeLessThan(300);
    await warm(t(), ws, { workflow: 'doomed', recipients: ['ada'], data: {} });
    const forAcme = { workflow: 'kept', recipients: ['ada'], data: {}, tenant_id: 'acme' };
    await warm(t(), ws, forAcme);

    expect((await manage(t(), ws, 'DELETE', 'workflow/doomed/')).statusCode).toBe(204);
    expect(await status(t(), ws, { workflow: 'doomed', recipients: ['ada'], data: {} })).toBe(404);

    expect((await base(t(), ws, 'DELETE', '/v1/tenant/acme/')).statusCode).toBe(204);
    const refused = await send(t(), ws, forAcme);
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toMatchObject({ message: "tenant 'acme' not found" });
    // The other tenant and workflow are untouched.
    expect(await status(t(), ws, { workflow: 'kept', recipients: ['ada'], data: {} })).toBe(202);
  });
});

describe.runIf(onPostgres)('trigger lookups across instances sharing PostgreSQL', () => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await buildTestApp({}, { engine: { worker: false } });
    second = await buildTestApp({}, { engine: { worker: false } });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it('sees a workflow disabled or deleted and a tenant deleted by another instance', async () => {
    const ws = await engineWorkspace(() => first);
    await liveWorkflow(() => first, ws, 'shared', [inbox()]);
    await liveWorkflow(() => first, ws, 'gone', [inbox()]);
    expect((await base(first, ws, 'POST', '/v1/tenant/beta/', { tenant_name: 'Beta' })).statusCode).toBeLessThan(300);
    const shared = { workflow: 'shared', recipients: ['ada'], data: {} };
    const gone = { workflow: 'gone', recipients: ['ada'], data: {} };
    const forBeta = { ...gone, tenant_id: 'beta' };
    await warm(first, ws, shared);
    await warm(first, ws, forBeta);

    expect((await manage(second, ws, 'PATCH', 'workflow/shared/enable/', { is_enabled: false })).statusCode).toBe(202);
    await eventually(async () => (await status(first, ws, shared)) === 404);

    expect((await base(second, ws, 'DELETE', '/v1/tenant/beta/')).statusCode).toBe(204);
    await eventually(async () => (await status(first, ws, forBeta)) === 404);

    await warm(first, ws, gone);
    expect((await manage(second, ws, 'DELETE', 'workflow/gone/')).statusCode).toBe(204);
    await eventually(async () => (await status(first, ws, gone)) === 404);
  });
});
