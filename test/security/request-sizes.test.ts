import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { MAX_BIND_PARAMETERS } from '../../src/db/database.js';
import { MAX_TRIGGER_RECIPIENTS, MAX_TRIGGER_RECORDS, TRIGGER_BODY_LIMIT } from '../../src/schemas/triggers.js';
import { baseCall, engineWorkspace, inbox, liveWorkflow, waitFor } from '../support/engine-drivers.js';

/**
 * Sizes at every boundary (issue 25, point 1): the largest request the documented limits allow is
 * served on both engines, no statement Herald sends binds more parameters than either engine takes
 * (PGlite's protocol parser loses step past 32,767; PostgreSQL refuses past 65,535), and the database
 * still answers every workspace afterwards.
 */
describe('the largest documented requests', () => {
  const t = useTestApp({}, { engine: {} });

  it(`a trigger of ${MAX_TRIGGER_RECORDS} records × ${MAX_TRIGGER_RECIPIENTS} inline recipients runs every recipient, binds at most ${MAX_BIND_PARAMETERS} parameters per statement, and leaves the database answering`, async () => {
    const ws = await engineWorkspace(t);
    const other = await engineWorkspace(t);
    await liveWorkflow(t, ws, 'largest', [inbox()]);
    const call = baseCall(t, ws);
    t().queries.reset();
    const records = Array.from({ length: MAX_TRIGGER_RECORDS }, (_, r) => ({
      workflow: 'largest',
      recipients: Array.from({ length: MAX_TRIGGER_RECIPIENTS }, (_, i) => ({
        distinct_id: `b${r}-${i}`,
        $email: [`b${r}-${i}@x.test`],
      })),
      data: { r },
    }));
    expect(JSON.stringify(records).length).toBeLessThan(TRIGGER_BODY_LIMIT);
    const accepted = await call('POST', '/trigger/', records);
    expect(accepted.statusCode).toBe(207);
    const outcomes = (accepted.json() as { records: { status_code: number }[] }).records;
    expect(outcomes.filter((record) => record.status_code === 202)).toHaveLength(MAX_TRIGGER_RECORDS);
    const expected = MAX_TRIGGER_RECORDS * MAX_TRIGGER_RECIPIENTS;
    const count = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*) as n from messages where workspace_id = ${ws.workspaceId}`.execute(
            t().db,
          )
        ).rows[0]?.n ?? 0,
      );
    await waitFor(async () => (await count()) >= expected, 600_000, `${expected} messages`);
    expect(await count()).toBe(expected);
    expect(t().queries.maxParameters).toBeGreaterThan(0);
    expect(t().queries.maxParameters).toBeLessThanOrEqual(MAX_BIND_PARAMETERS);
    // The database still answers, for this workspace and any other.
    const ready = await t().app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    const user = await call('GET', '/v1/user/b99-99/');
    expect(user.statusCode, user.body).toBe(200);
    expect(user.json().distinct_id).toBe('b99-99');
    const otherUser = await baseCall(t, other)('POST', '/v1/user/someone-else/', { $email: ['else@example.test'] });
    expect(otherUser.statusCode, otherUser.body).toBeLessThan(300);
  }, 900_000);
});

describe('an embedded connection out of step', () => {
  it.runIf(!process.env.DATABASE_URL)(
    'a statement binding more parameters than PGlite parses is refused before it is sent, and the connection stays in step',
    async () => {
      const { buildTestApp } = await import('../support/app.js');
      const app = await buildTestApp();
      try {
        const { PGlite } = await import('@electric-sql/pglite');
        const pglite = app.pglite;
        expect(pglite).toBeDefined();
        const count = MAX_BIND_PARAMETERS + 1;
        const values = Array.from({ length: count }, (_, i) => i);
        const text = `select count(*) from (values ${values.map((_, i) => `($${i + 1}::int)`).join(', ')}) as v(x)`;
        await expect(pglite!.query(text, values)).rejects.toThrow(/binds 32768 parameters/);
        await expect(sql`select ${sql.join(values)} as too_many`.execute(app.db)).rejects.toThrow(
          /binds 32768 parameters/,
        );
        const ready = await app.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(200);
        // Sent past the guard, the statement leaves PGlite answering nothing: readiness says so.
        await PGlite.prototype.query.call(pglite!, text, values).catch(() => undefined);
        const lost = await app.app.inject({ method: 'GET', url: '/readyz' });
        expect(lost.statusCode).toBe(503);
        expect(lost.json().message).toMatch(/out of step/);
      } finally {
        await app.close().catch(() => undefined);
      }
    },
    60_000,
  );
});
