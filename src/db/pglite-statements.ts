import { parse, protocol, types, type PGlite, type Results, type Transaction } from '@electric-sql/pglite';
import { PLANNED_EACH_TIME } from './planned-each-time.js';

/**
 * PGlite's statements parsed once under a name and then each run as one exchange.
 *
 * `PGlite.query()` sends Parse, Describe, Bind, Describe, Execute and Sync as six calls into the
 * WebAssembly, and parses and plans the text every time: 600–960 µs of CPU for any statement
 * (BENCHMARKS.md, "Embedded engine"). Here a statement's text is parsed once under a name (Parse,
 * Describe, Sync: its parameter types, which choose each value's serializer as `query()` does), and
 * every run is one call: Bind, Describe, Execute, Sync. The result goes through PGlite's own
 * `parseResults` with the instance's parsers, so rows are what `query()` returns; the messages are
 * PGlite's own serializers (pg-protocol's). Names are kept per SQL text, least recently used first
 * out (closed on the next exchange).
 *
 * Same locking as `query()`: outside a transaction a statement takes PGlite's transaction lock and
 * its query lock and syncs the file system after; inside `pglite.transaction()` (whose lock the
 * caller holds) only the query lock. A statement that fails inside a transaction leaves it aborted,
 * exactly as with `query()`. A name whose plan a schema change invalidated ("cached plan must not
 * change result type") is dropped; outside a transaction the statement is prepared again and re-run
 * once, inside one the error stands (the transaction is aborted by then).
 */

const { serialize } = protocol;
type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];
type Message<K extends keyof typeof protocol.messages> = InstanceType<
  Extract<(typeof protocol.messages)[K], abstract new (...args: never) => unknown>
>;

interface Prepared {
  name: string;
  parameterTypes: number[];
}

/** The named statement itself is stale (a schema change) or gone, not the statement failed. */
function isStale(error: unknown) {
  const { code, message } = error as { code?: string; message?: string };
  return code === '26000' || (code === '0A000' && /cached plan/.test(message ?? ''));
}

/** Statements that can be prepared; anything else (DDL, SET, transaction control) goes to `query()`. */
const PREPARABLE = /^\s*(?:select|insert|update|delete|with|values)\b/i;
/**
 * Not preparable, but no statement's result changes with them: the names stay (the embedded upkeep's statements,
 * src/db/table-upkeep.ts, would otherwise have every name parsed again after each of its checks). A plan an ANALYZE
 * makes stale, PostgreSQL makes again itself.
 */
const KEEPS_NAMES = /^\s*(?:vacuum|analyze|(?:set|reset)\s+default_statistics_target)\b/i;

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * `parse.parseResults(messages, parsers)[0]`, value for value (the same `types.parseType` with the
 * same parsers), without the copy of every parser it makes per call: with the array types' parsers
 * that copy cost more than running the statement (~230 µs for a one-row read).
 */
function firstResult<R>(messages: BackendMessage[], parsers: PGlite['parsers']): Results<R> {
  let fields: { name: string; dataTypeID: number }[] = [];
  const rows: Record<string, unknown>[] = [];
  for (const message of messages) {
    if (message.name === 'rowDescription') {
      fields = (message as Message<'RowDescriptionMessage'>).fields.map(({ name, dataTypeID }) => ({
        name,
        dataTypeID,
      }));
    } else if (message.name === 'dataRow') {
      const row: Record<string, unknown> = {};
      (message as Message<'DataRowMessage'>).fields.forEach(
        (value, i) => (row[fields[i]!.name] = types.parseType(value, fields[i]!.dataTypeID, parsers)),
      );
      rows.push(row);
    } else if (message.name === 'commandComplete') {
      const [command, a, b] = (message as Message<'CommandCompleteMessage'>).text.split(' ');
      const affectedRows =
        command === 'INSERT'
          ? parseInt(b!, 10)
          : ['UPDATE', 'DELETE', 'COPY', 'MERGE'].includes(command!)
            ? parseInt(a!, 10)
            : 0;
      return { rows, fields, affectedRows } as Results<R>;
    }
  }
  return { affectedRows: 0, rows: [], fields: [] } as Results<R>;
}

/** Names unique in the process: two sets on one PGlite (a test's) must not collide. */
let named = 0;

export class PGliteStatements {
  private readonly prepared = new Map<string, Prepared>();
  /** The parameter types of statements planned on every run, by text (least recently added first out). */
  private readonly unnamedTypes = new Map<string, number[]>();
  private readonly toClose: string[] = [];

  private readonly unprepared: PGlite['query'];

  /** Before anything replaces `pglite.query`: statements that cannot be prepared go to PGlite's own. */
  constructor(
    private readonly pglite: PGlite,
    private readonly max = 256,
  ) {
    this.unprepared = pglite.query.bind(pglite);
  }

  /** `query(sql, parameters)`'s result, on `transaction` (from `pglite.transaction()`, whose lock the caller holds) if given. */
  async query<R>(sql: string, parameters: readonly unknown[], transaction?: Transaction): Promise<Results<R>> {
    if (!PREPARABLE.test(sql)) {
      // DDL may change what a prepared statement returns: start again with fresh names.
      if (!KEEPS_NAMES.test(sql)) this.forgetAll();
      return transaction ? transaction.query<R>(sql, [...parameters]) : this.unprepared<R>(sql, [...parameters]);
    }
    if (transaction) return this.pglite._runExclusiveQuery(() => this.run<R>(sql, parameters, true));
    await this.pglite._checkReady();
    return this.pglite._runExclusiveTransaction(() =>
      this.pglite._runExclusiveQuery(async () => {
        const result = await this.run<R>(sql, parameters, false);
        await this.pglite.syncToFs();
        return result;
      }),
    );
  }

  /** Drops every name (closed on the next exchange). */
  forgetAll() {
    for (const { name } of this.prepared.values()) this.toClose.push(name);
    this.prepared.clear();
  }

  private async run<R>(sql: string, parameters: readonly unknown[], inTransaction: boolean): Promise<Results<R>> {
    if (sql.endsWith(PLANNED_EACH_TIME)) {
      try {
        return await this.executeUnnamed<R>(sql, parameters);
      } catch (error) {
        throw this.annotate(error, sql, parameters);
      }
    }
    try {
      return await this.execute<R>(await this.prepare(sql), sql, parameters);
    } catch (error) {
      if (!isStale(error) || !this.prepared.has(sql)) throw this.annotate(error, sql, parameters);
      this.forget(sql);
      if (inTransaction) throw this.annotate(error, sql, parameters);
      try {
        return await this.execute<R>(await this.prepare(sql), sql, parameters);
      } catch (again) {
        throw this.annotate(again, sql, parameters);
      }
    }
  }

  private async prepare(sql: string): Promise<Prepared> {
    const known = this.prepared.get(sql);
    if (known) {
      // Most recently used last: a Map keeps insertion order.
      this.prepared.delete(sql);
      this.prepared.set(sql, known);
      return known;
    }
    const name = `herald_${++named}`;
    const messages = await this.exchange([
      serialize.parse({ name, text: sql }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    ]);
    const prepared = { name, parameterTypes: parse.parseDescribeStatementResults(messages) };
    this.prepared.set(sql, prepared);
    if (this.prepared.size > this.max) this.forget(this.prepared.keys().next().value!);
    return prepared;
  }

  private async execute<R>(prepared: Prepared, sql: string, parameters: readonly unknown[]): Promise<Results<R>> {
    const messages = await this.exchange([
      this.bind(prepared.name, prepared.parameterTypes, parameters),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    return firstResult<R>(messages, this.pglite.parsers);
  }

  /**
   * A statement planned on every run (`PLANNED_EACH_TIME`, src/db/database.ts), as on PostgreSQL: a named
   * statement's plan is made once, when the table it reads may still be small, and made again only after
   * an ANALYZE of that table, which on PGlite comes from Herald's upkeep (src/db/table-upkeep.ts) at most
   * once a minute: a fan-out grows the table by thousands of rows meanwhile. Unnamed, but still one
   * exchange: Parse, Describe (its parameter types), Bind, Describe, Execute, Sync. The parameter types
   * are those of a first parse, kept per text.
   */
  private async executeUnnamed<R>(sql: string, parameters: readonly unknown[]): Promise<Results<R>> {
    let parameterTypes = this.unnamedTypes.get(sql);
    if (!parameterTypes) {
      const described = await this.exchange([
        serialize.parse({ text: sql }),
        serialize.describe({ type: 'S' }),
        serialize.sync(),
      ]);
      parameterTypes = parse.parseDescribeStatementResults(described);
      this.unnamedTypes.set(sql, parameterTypes);
      if (this.unnamedTypes.size > this.max) this.unnamedTypes.delete(this.unnamedTypes.keys().next().value!);
    }
    const messages = await this.exchange([
      serialize.parse({ text: sql }),
      this.bind('', parameterTypes, parameters),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    return firstResult<R>(messages, this.pglite.parsers);
  }

  private bind(statement: string, parameterTypes: number[], parameters: readonly unknown[]) {
    const { serializers } = this.pglite;
    const values = parameters.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = serializers[parameterTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    return serialize.bind({ statement, values });
  }

  /** One call into PGlite: the closes of dropped names first, then `parts`; throws the first error. */
  private exchange(parts: Uint8Array[]) {
    const closes = this.toClose.splice(0).map((name) => serialize.close({ type: 'S', name }));
    return this.pglite.execProtocolStream(concat([...closes, ...parts]), { syncToFs: false });
  }

  private forget(sql: string) {
    const prepared = this.prepared.get(sql);
    if (!prepared) return;
    this.prepared.delete(sql);
    this.toClose.push(prepared.name);
  }

  /** What `query()` adds to a database error. */
  private annotate(error: unknown, sql: string, parameters: readonly unknown[]) {
    if (error && typeof error === 'object' && 'code' in error) Object.assign(error, { query: sql, params: parameters });
    return error;
  }
}
