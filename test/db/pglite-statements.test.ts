import { PGlite } from '@electric-sql/pglite';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { guardParameterCount, HeraldPGliteDialect } from '../../src/db/pglite-dialect.js';
import { PGliteStatements } from '../../src/db/pglite-statements.js';
import { PLANNED_EACH_TIME } from '../../src/db/database.js';

/**
 * src/db/pglite-statements.ts: the embedded database's statements parsed once under a name and run as
 * one exchange, with rows identical to PGlite's own `query()`. PGlite-only: it runs in the embedded run.
 */

const open: PGlite[] = [];
afterEach(async () => {
  for (const pglite of open.splice(0)) await pglite.close();
});

async function embedded() {
  const pglite = new PGlite('memory://', { parsers: { 20: Number, 1700: Number } });
  open.push(pglite);
  const plain = pglite.query.bind(pglite);
  guardParameterCount(pglite);
  await pglite.exec(`
    create table t (
      id int8 primary key, doc jsonb, at timestamptz, day date, tags text[], counts int[], blob bytea,
      amount numeric, flag bool, uid uuid, note text
    )`);
  return {
    pglite,
    plain,
    db: new Kysely<{ t: { id: number; note: string | null } }>({ dialect: new HeraldPGliteDialect(pglite) }),
  };
}

/** The first message of each call into PGlite's WebAssembly, by its type byte. */
function crossings(pglite: PGlite) {
  const seen: string[] = [];
  const original = pglite.execProtocolStream.bind(pglite);
  pglite.execProtocolStream = (message, options) => {
    seen.push(String.fromCharCode(message[0]!));
    return original(message, options);
  };
  return seen;
}

const ROW = [
  9007199254740993n.toString(),
  { a: [1, 'two', { three: null }], é: true },
  new Date('2026-11-27T10:00:00.123Z'),
  '2026-11-27',
  ['x', 'y z', 'with "quote"', null],
  [1, 2, 3],
  new Uint8Array([0, 1, 254, 255]),
  '12.50',
  true,
  '0190a3b4-0000-7000-8000-000000000000',
  null,
];
const INSERT = 'insert into t values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning *';

// Each test starts its own PGlite (initdb), which takes tens of seconds on a loaded machine.
describe('named PGlite statements', { timeout: 120_000 }, () => {
  it('return the rows, fields and counts that PGlite query() returns, type for type', async () => {
    const { pglite, plain } = await embedded();
    const prepared = await pglite.query(INSERT, ROW);
    await pglite.exec('delete from t');
    const unprepared = await plain(INSERT, ROW);
    expect(prepared).toEqual(unprepared);
    expect(prepared.affectedRows).toBe(1);
    const row = prepared.rows[0] as Record<string, unknown>;
    expect(row.doc).toEqual(ROW[1]);
    expect(row.at).toEqual(ROW[2]);
    expect(row.tags).toEqual(ROW[4]);
    expect(row.counts).toEqual([1, 2, 3]);
    expect(row.blob).toEqual(new Uint8Array([0, 1, 254, 255]));
    expect(row.id).toBe(Number(ROW[0]));
    const select = 'select *, $1::int8[] as ids, $2::jsonb as j from t where id = $3';
    const values = [[1, 2], [{ k: 'v' }], ROW[0]];
    expect(await pglite.query(select, values)).toEqual(await plain(select, values));
    expect((await pglite.query('update t set note = $1 where id > $2', ['n', 0])).affectedRows).toBe(1);
  });

  it('parse a text once, then run it in one call into the WebAssembly', async () => {
    const { pglite, db } = await embedded();
    const seen = crossings(pglite);
    const read = () => db.selectFrom('t').select('id').where('id', '=', 1).execute();
    await read();
    expect(seen).toEqual(['P', 'B']);
    await read();
    await read();
    expect(seen).toEqual(['P', 'B', 'B', 'B']);
  });

  it('a failed statement inside a transaction rolls it back and leaves the database usable', async () => {
    const { db } = await embedded();
    await db.insertInto('t').values({ id: 1, note: 'kept' }).execute();
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('t').values({ id: 2, note: 'rolled back' }).execute();
        await trx.insertInto('t').values({ id: 1, note: 'duplicate' }).execute();
      })
      .catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: '23505', query: expect.stringContaining('insert into "t"') });
    expect(await db.selectFrom('t').select(['id', 'note']).orderBy('id').execute()).toEqual([{ id: 1, note: 'kept' }]);
  });

  it('a name whose plan a schema change invalidated is prepared again outside a transaction', async () => {
    const { pglite, db } = await embedded();
    const everything = () => sql<Record<string, unknown>>`select * from t where id = ${1}`.execute(db);
    await db.insertInto('t').values({ id: 1, note: 'n' }).execute();
    expect(Object.keys((await everything()).rows[0]!)).not.toContain('extra');
    // Straight to PGlite's exec, so that nothing but the error says the name is stale.
    await pglite.exec('alter table t add column extra int default 7');
    expect((await everything()).rows[0]).toMatchObject({ id: 1, extra: 7 });
    await pglite.exec('alter table t drop column extra');
    // Inside a transaction the error stands (the transaction is aborted); the next run prepares again.
    await expect(db.transaction().execute((trx) => sql`select * from t where id = ${1}`.execute(trx))).rejects.toThrow(
      /cached plan must not change result type/,
    );
    expect(Object.keys((await everything()).rows[0]!)).not.toContain('extra');
    // DDL through Kysely forgets every name at once.
    await sql`alter table t add column later int default 8`.execute(db);
    await expect(
      db.transaction().execute((trx) => sql`select * from t where id = ${1}`.execute(trx)),
    ).resolves.toMatchObject({
      rows: [{ later: 8 }],
    });
  });

  it('keeps at most its bound of names, closing the least recently used', async () => {
    const { pglite } = await embedded();
    const statements = new PGliteStatements(pglite, 2);
    const prepared = async () =>
      (await pglite.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements')).rows[0]!.n;
    const before = await prepared();
    for (const n of [1, 2, 3, 1, 4]) await statements.query(`select $1::int + ${n} as n`, [n]);
    // The last exchange closed the names dropped before it: two of this set's remain.
    await statements.query('select $1::int + 4 as n', [4]);
    expect((await prepared()) - before).toBe(2);
  });

  it('a statement planned each time is never named: parsed and planned in its one exchange of every run', async () => {
    const { pglite, plain } = await embedded();
    const seen = crossings(pglite);
    const prepared = async () =>
      (await plain<{ n: number }>('select count(*)::int as n from pg_prepared_statements')).rows[0]!.n;
    const byIds = `select * from t where id in (select jsonb_array_elements_text($1::jsonb)::int8)${PLANNED_EACH_TIME}`;
    const run = (ids: number[]) => pglite.query<{ id: number }>(byIds, [JSON.stringify(ids)]);
    const namesBefore = await prepared();
    seen.splice(0);
    expect((await run([1])).rows).toEqual([]);
    // First run: the parameter types (Parse, Describe, Sync); then each run is one call: Parse … Sync.
    expect(seen.splice(0)).toEqual(['P', 'P']);
    await plain(INSERT, ROW);
    await plain('insert into t (id) select g from generate_series(1, 3000) g');
    seen.splice(0);
    const both = await run([2, Number(ROW[0])]);
    expect(seen.splice(0)).toEqual(['P']);
    expect(both).toEqual(await plain(byIds, [JSON.stringify([2, Number(ROW[0])])]));
    expect(await prepared()).toBe(namesBefore);
    const failure = await pglite.query(`select 1/$1::int${PLANNED_EACH_TIME}`, [0]).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: '22012', query: expect.stringContaining('select 1/') });
  });

  it('VACUUM and ANALYZE keep the names, and the plan an ANALYZE makes stale is made again', async () => {
    const { pglite, plain, db } = await embedded();
    await pglite.exec('create index t_note on t (note); set plan_cache_mode = force_generic_plan');
    await db.insertInto('t').values({ id: 1, note: 'n' }).execute();
    await sql`analyze t`.execute(db);
    const byNote = () => sql`select id from t where note = ${'n'}`.execute(db);
    await byNote();
    const seen = crossings(pglite);
    const name = async () =>
      (await plain<{ name: string }>(`select name from pg_prepared_statements where statement like '%where note =%'`))
        .rows[0]!.name;
    // A plan made while the table had one row (`exec` reads it without going through the names).
    const plan = async () =>
      (await pglite.exec(`explain execute ${await name()}('n')`))[0]!.rows.map((row) => Object.values(row)[0]).join();
    const before = await name();
    expect(await plan()).toMatch(/Seq Scan/);
    await plain(`insert into t (id, note) select g, g::text from generate_series(2, 20000) g`);
    expect(await plan()).toMatch(/Seq Scan/);
    // As the embedded upkeep sends them (src/db/table-upkeep.ts).
    await sql`vacuum t`.execute(db);
    await sql`set default_statistics_target = 10`.execute(db);
    await sql`analyze t`.execute(db);
    await sql`reset default_statistics_target`.execute(db);
    seen.splice(0);
    await byNote();
    // Still the same name, bound at once (no Parse); PostgreSQL made its plan again from the new statistics.
    expect(seen).toEqual(['B']);
    expect(await name()).toBe(before);
    expect(await plan()).toMatch(/Index/);
  });

  it('a syntax error is the database error query() throws, and the next statement runs', async () => {
    const { pglite, plain } = await embedded();
    const prepared = await pglite.query('selec $1', [1]).catch((error: unknown) => error);
    const unprepared = await plain('selec $1', [1]).catch((error: unknown) => error);
    expect(prepared).toMatchObject({ code: '42601', message: (unprepared as Error).message, query: 'selec $1' });
    expect((await pglite.query('select $1::int as one', [1])).rows).toEqual([{ one: 1 }]);
  });
});
