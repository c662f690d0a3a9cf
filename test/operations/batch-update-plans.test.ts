import { describe, expect, it } from 'vitest';
import { CompiledQuery, sql } from 'kysely';
import { createDatabase, type Trx } from '../../src/db/database.js';
import { saveMessageStates } from '../../src/repositories/messages.js';
import { saveObjectStates } from '../../src/repositories/objects.js';
import { saveRunsProgress } from '../../src/repositories/runs.js';
import { saveUserStates } from '../../src/repositories/users.js';

const url = process.env.DATABASE_URL;
const ROLLBACK = new Error('rollback');

/**
 * The batch updates join their rows to a JSON record set, which the planner always estimates at 100
 * rows: joined on that alone, a table whose statistics say it is small is hashed whole by a
 * sequential scan (the runs update did so on every batch of a fan-out). Each also names its rows by
 * primary key as an array; with sequential scans priced out, the plan shows whether it can.
 */
async function planOf(write: (trx: Trx) => Promise<unknown>): Promise<string> {
  let captured: CompiledQuery | undefined;
  const { db } = createDatabase({
    url: url!,
    poolSize: 1,
    onQuery: (event) => {
      if (/^\s*update /i.test(event.query.sql)) captured = event.query;
    },
  });
  let plan = '';
  try {
    await db
      .transaction()
      .execute(async (trx) => {
        await write(trx);
        await sql`set local enable_seqscan = off`.execute(trx);
        const explained = await trx.executeQuery<{ 'QUERY PLAN': string }>(
          CompiledQuery.raw(`explain ${captured!.sql}`, [...captured!.parameters]),
        );
        plan = explained.rows.map((row) => row['QUERY PLAN']).join('\n');
        throw ROLLBACK;
      })
      .catch((error: unknown) => {
        if (error !== ROLLBACK) throw error;
      });
  } finally {
    await db.destroy();
  }
  return plan;
}

const byPrimaryKey = (table: string, type: string) =>
  new RegExp(`Index Scan using ${table}_pkey on ${table} .*\\n\\s*Index Cond: \\(id = ANY \\(.*::${type}\\[\\]\\)\\)`);

describe('batch updates', () => {
  it.runIf(url)('find their rows by primary key, whatever the statistics say', async () => {
    const runs = await planOf((trx) => saveRunsProgress(trx, [{ id: 'r-none', status: 'completed', position: [1] }]));
    expect(runs).toMatch(byPrimaryKey('workflow_runs', 'text'));

    const messages = await planOf((trx) =>
      saveMessageStates(trx, [
        {
          id: 'm-none',
          status: 'seen',
          is_read: true,
          is_archived: false,
          seen_at: new Date().toISOString(),
          read_at: new Date().toISOString(),
          clicked_at: null,
          dismissed_at: null,
          archived_at: null,
        },
      ]),
    );
    expect(messages).toMatch(byPrimaryKey('messages', 'text'));

    const state = { id: -1, fresh: false, properties: {}, channels: {} };
    expect(await planOf((trx) => saveUserStates(trx, [state]))).toMatch(byPrimaryKey('users', 'bigint'));
    expect(await planOf((trx) => saveObjectStates(trx, [state]))).toMatch(byPrimaryKey('objects', 'bigint'));
  });
});
