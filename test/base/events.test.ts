import { describe, expect, it } from 'vitest';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture, type WorkspaceFixture } from '../support/fixtures.js';

describe('POST /event/', () => {
  const t = useTestApp();
  const post = (ws: WorkspaceFixture, payload: unknown) =>
    t().app.inject({ method: 'POST', url: '/event/', headers: ws.base, payload: payload as object });
  const storedEvents = (ws: WorkspaceFixture) =>
    t()
      .db.selectFrom('events')
      .select(['distinct_id', 'event', 'properties', 'tenant_id', 'insert_id', 'created_at'])
      .where('workspace_id', '=', ws.workspaceId)
      .orderBy('id')
      .execute();

  it('stores a track record with its time, insert id and tenant', async () => {
    const ws = await createWorkspaceFixture(t());
    const time = Date.parse('2026-01-02T03:04:05.678Z');
    const response = await post(ws, {
      event: 'order_placed',
      distinct_id: 'u1',
      properties: { amount: 5 },
      $insert_id: 'ins-1',
      $time: time,
      env: 'x',
      tenant_id: 'acme',
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ success: true, tracked: 1, duplicates: 0, user_edits: 0 });
    expect(await storedEvents(ws)).toEqual([
      {
        distinct_id: 'u1',
        event: 'order_placed',
        properties: { amount: 5 },
        tenant_id: 'acme',
        insert_id: 'ins-1',
        created_at: new Date(time),
      },
    ]);
  });

  it('stores a repeated $insert_id or $idempotency_key once, within a batch and across requests', async () => {
    const ws = await createWorkspaceFixture(t());
    const record = { event: 'e', distinct_id: 'u1', $insert_id: 'same' };
    expect((await post(ws, [record, record])).json()).toMatchObject({ tracked: 1, duplicates: 1 });
    expect((await post(ws, record)).json()).toMatchObject({ tracked: 0, duplicates: 1 });
    const keyed = { event: 'e', distinct_id: 'u1', $idempotency_key: 'idem-1' };
    await post(ws, { ...keyed, $insert_id: 'r1' });
    await post(ws, { ...keyed, $insert_id: 'r2' });
    expect((await storedEvents(ws)).map((e) => e.insert_id)).toEqual(['same', 'idem-1']);
  });

  it('applies user-edit records like PATCH, creating the user when missing', async () => {
    const ws = await createWorkspaceFixture(t());
    const userEdit = (ops: unknown[]) => ({
      $schema: '2',
      $insert_id: crypto.randomUUID(),
      $time: Date.now(),
      env: 'k',
      distinct_id: 'new-user',
      $user_operations: ops,
      properties: {},
    });
    const response = await post(ws, [
      userEdit([{ $set: { name: 'Ada' }, $append: { $email: 'ada@x.com' } }]),
      { event: 'signed_up', distinct_id: 'new-user' },
      userEdit([{ $add: { logins: 1 } }]),
      userEdit([{ $add: { logins: 1 } }]),
    ]);
    expect(response.json()).toEqual({ success: true, tracked: 1, duplicates: 0, user_edits: 3 });
    const user = await t().app.inject({ method: 'GET', url: '/v1/user/new-user/', headers: ws.base });
    expect(user.json()).toMatchObject({
      properties: { name: 'Ada', logins: 2 },
      $email: [{ value: 'ada@x.com', status: 'active', perma_status: 'active' }],
    });
  });

  it('rejects reserved event names', async () => {
    const ws = await createWorkspaceFixture(t());
    for (const event of ['$identify', 'ss_internal', 'SS_thing']) {
      const response = await post(ws, { event, distinct_id: 'u1' });
      expect(response.statusCode, event).toBe(400);
      expect(response.json().message).toBe(
        `event: '${event}' is reserved: names starting with $ or ss_ belong to the platform`,
      );
    }
  });

  it('takes event times up to the end of year 9999, the same on both engines', async () => {
    const ws = await createWorkspaceFixture(t());
    const last = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    expect((await post(ws, { event: 'late', distinct_id: 'u1', $time: last })).statusCode).toBe(202);
    const beyond = await post(ws, { event: 'later', distinct_id: 'u1', $time: last + 1 });
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json().message).toMatch(/\$time/);
  });

  it('names the record index and field of a bad record, and stores nothing from that batch', async () => {
    const ws = await createWorkspaceFixture(t());
    const good = { event: 'ok', distinct_id: 'u1' };
    const cases: [unknown[], string, string][] = [
      [[good, { event: 'x' }], '[1].distinct_id', 'expected required property'],
      [[good, good, { event: 'x', distinct_id: 'u', $time: 'noon' }], '[2].$time', 'expected number'],
      [[good, { event: 'x', distinct_id: 'u', properties: [] }], '[1].properties', 'expected object'],
      [[good, { distinct_id: 'u' }], '[1].event', 'is required (or $user_operations for a user edit)'],
      [[good, 'text'], '[1]', 'must be an object'],
      [
        [good, { distinct_id: 'u', $user_operations: [{ $append: { $email: 'bad' } }] }],
        '[1].$user_operations[0].$append.$email',
        "'bad' is not a valid email address",
      ],
    ];
    for (const [records, field, reason] of cases) {
      const response = await post(ws, records);
      expect(response.statusCode, field).toBe(400);
      const body = response.json();
      expect(body, field).toMatchObject({ code: 400, error_code: 'validation_error', type: 'ValidationError' });
      expect(body.message, field).toContain(field);
      expect(body.message, field).toContain(reason);
      expect(Object.keys(body.detail), field).toEqual([field]);
    }
    expect(await storedEvents(ws)).toEqual([]);
    expect(await t().db.selectFrom('users').select('id').where('workspace_id', '=', ws.workspaceId).execute()).toEqual(
      [],
    );
  });

  it('takes at most 100 records and 800 KB', async () => {
    const ws = await createWorkspaceFixture(t());
    const many = Array.from({ length: 101 }, (_, i) => ({ event: 'e', distinct_id: `u${i}` }));
    const tooMany = await post(ws, many);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().message).toBe('body: at most 100 records per request (got 101)');
    expect((await post(ws, many.slice(0, 100))).json()).toMatchObject({ tracked: 100 });
    expect((await post(ws, [])).statusCode).toBe(400);
    // A list of user edits only may hold 400 (the Node SDK's bulk user edit), not 401.
    const edits = (n: number) => Array.from({ length: n }, (_, i) => ({ distinct_id: `e${i}`, $user_operations: [] }));
    expect((await post(ws, edits(400))).json()).toMatchObject({ user_edits: 400 });
    const tooManyEdits = await post(ws, edits(401));
    expect(tooManyEdits.statusCode).toBe(400);
    expect(tooManyEdits.json().message).toBe('body: at most 400 records per request (got 401)');
    const mixed = await post(ws, [...edits(150), { event: 'e', distinct_id: 'u' }]);
    expect(mixed.statusCode).toBe(400);
    const big = await post(ws, { event: 'e', distinct_id: 'u', properties: { blob: 'x'.repeat(800 * 1024) } });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ code: 413, error_code: 'payload_too_large' });
  });

  it('applies a batch of user edits in a fixed number of statements', async () => {
    const ws = await createWorkspaceFixture(t());
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ distinct_id: `b${i}`, $user_operations: [{ $set: { i } }] }));
    await post(ws, batch(1)); // finds the API key: the calls measured below are answered by the credential cache
    t().queries.reset();
    await post(ws, batch(2));
    const few = t().queries.count;
    t().queries.reset();
    await post(ws, batch(100));
    expect(few).toBeGreaterThanOrEqual(4);
    expect(t().queries.count).toBe(few);
  });
});
