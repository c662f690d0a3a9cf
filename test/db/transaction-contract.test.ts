import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { lockUsers } from '../../src/repositories/users.js';
import { changeUsers, upsertUser } from '../../src/services/users.js';
import { useTestApp } from '../support/app.js';
import { createWorkspaceFixture } from '../support/fixtures.js';

/**
 * Functions that must run inside a transaction take a Trx. The lines marked @ts-expect-error stop
 * compiling (and `npx tsc --noEmit` fails) the day one of them accepts the pool again.
 */
export function passingThePoolDoesNotCompile(db: Db) {
  // @ts-expect-error a pool handle is not a transaction
  void lockUsers(db, 1, ['u']);
  // @ts-expect-error a pool handle is not a transaction
  void changeUsers(db, 1, [], { create: true });
  // @ts-expect-error a pool handle is not a transaction
  void upsertUser(db, 1, 'u', {});
}

describe('the transaction contract', () => {
  const t = useTestApp();

  it('a write through a Trx stands or falls with its transaction', async () => {
    const ws = await createWorkspaceFixture(t());
    const stored = () =>
      t()
        .db.selectFrom('users')
        .select('distinct_id')
        .where('workspace_id', '=', ws.workspaceId)
        .orderBy('distinct_id')
        .execute();

    await expect(
      t()
        .db.transaction()
        .execute(async (trx) => {
          await upsertUser(trx, ws.workspaceId, 'rolled-back', { name: 'Ada' });
          throw new Error('abandon the transaction');
        }),
    ).rejects.toThrow('abandon the transaction');
    expect(await stored()).toEqual([]);

    const user = await t()
      .db.transaction()
      .execute((trx) => upsertUser(trx, ws.workspaceId, 'kept', { name: 'Ada' }));
    expect(user).toMatchObject({ distinct_id: 'kept', properties: { name: 'Ada' } });
    expect(await stored()).toEqual([{ distinct_id: 'kept' }]);
  });
});
