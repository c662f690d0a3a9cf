import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { claimIdempotencyKeys } from '../../src/repositories/executions.js';
import { lockMessages } from '../../src/repositories/messages.js';
import { lockRun, lockRuns } from '../../src/repositories/runs.js';
import { lockUsers } from '../../src/repositories/users.js';
import { findWorkflow } from '../../src/repositories/workflows.js';
import { startExecutions } from '../../src/engine/recipients.js';
import type { Queue } from '../../src/engine/queue.js';
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

/** The engine's side of the contract: a run, a message or a read row is locked only inside a transaction. */
export function lockingOnThePoolDoesNotCompile(db: Db, queue: Queue) {
  // @ts-expect-error a pool handle is not a transaction
  void lockRun(db, 'run');
  // @ts-expect-error a pool handle is not a transaction
  void lockRuns(db, ['run']);
  // @ts-expect-error a pool handle is not a transaction
  void lockMessages(db, 1, ['msg']);
  // @ts-expect-error an idempotency claim stands or falls with the executions it names
  void claimIdempotencyKeys(db, 1, []);
  // @ts-expect-error runs and their jobs are written together
  void startExecutions(db, queue, []);
  // @ts-expect-error `lock: true` holds the row until the transaction ends: there must be one
  void findWorkflow(db, 1, 'slug', { lock: true });
  // Without the lock a read runs on either.
  void findWorkflow(db, 1, 'slug');
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
