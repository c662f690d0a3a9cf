import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { reusableQuery } from '../../src/db/reusable-query.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

describe('reusableQuery', () => {
  const t = useTestApp();

  it('answers each call with its own parameters, from one compiled statement', async () => {
    const ws = await createWorkspaceFixture(t());
    await t()
      .db.insertInto('users')
      .values([
        { workspace_id: ws.workspaceId, distinct_id: 'a' },
        { workspace_id: ws.workspaceId, distinct_id: 'b' },
      ])
      .execute();
    const find = reusableQuery(
      (db, workspaceId: number, distinctId: string) =>
        db
          .selectFrom('users')
          .select('distinct_id')
          .where('workspace_id', '=', workspaceId)
          .where('distinct_id', '=', distinctId),
      [0, ''],
    );
    expect(await find(t().db, ws.workspaceId, 'a')).toEqual([{ distinct_id: 'a' }]);
    expect(await find(t().db, ws.workspaceId, 'b')).toEqual([{ distinct_id: 'b' }]);
    expect(await find(t().db, ws.workspaceId + 1_000_000, 'a')).toEqual([]);
    await t()
      .db.transaction()
      .execute(async (trx) => expect(await find(trx, ws.workspaceId, 'b')).toEqual([{ distinct_id: 'b' }]));
  });

  it('refuses a query that does not send its placeholders as its parameters, in order', async () => {
    const inlined = reusableQuery(
      (db, id: number) => db.selectFrom('users').select('id').where('id', '=', sql.lit(id)),
      [7],
    );
    await expect(inlined(t().db, 1)).rejects.toThrow(/placeholders/);
    const swapped = reusableQuery(
      (db, a: number, b: string) =>
        db.selectFrom('users').select('id').where('distinct_id', '=', b).where('workspace_id', '=', a),
      [1, 'x'],
    );
    await expect(swapped(t().db, 1, 'x')).rejects.toThrow(/in order/);
  });
});
