import type { PGlite, Transaction } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { assertBindable } from './bind-limit.js';
import { PGliteStatements } from './pglite-statements.js';

/**
 * Kysely over one embedded PGlite, with transactions run by `pglite.transaction()`.
 *
 * The stock dialect sends BEGIN as an ordinary query: whatever else talks to the same PGlite (the
 * durable queue does, on its own) then runs inside the open transaction, and a rollback takes the
 * other party's writes with it, or commits them when it should not (docs/engine.md, "one PGlite,
 * two clients"). `pglite.transaction()` holds PGlite's own lock from BEGIN to COMMIT, so a statement
 * sent straight to the PGlite waits for the transaction to end instead of joining it.
 */

const ROLLBACK = Symbol('rollback');

/** One set of named statements per PGlite (src/db/pglite-statements.ts), made before `query` is replaced. */
const statementsByPGlite = new WeakMap<PGlite, PGliteStatements>();
function statementsOf(pglite: PGlite) {
  let statements = statementsByPGlite.get(pglite);
  if (!statements) statementsByPGlite.set(pglite, (statements = new PGliteStatements(pglite)));
  return statements;
}

/**
 * The embedded database with every statement sent straight to it (the durable queue's) refused
 * when it binds more parameters than PGlite parses in step (src/db/bind-limit.ts), and run as a
 * named statement in one exchange (src/db/pglite-statements.ts) unless it brings query options;
 * Kysely's go through PGliteConnection, which does both too (a transaction's statements bypass `query`).
 */
export function guardParameterCount(pglite: PGlite): PGlite {
  const statements = statementsOf(pglite);
  const query = pglite.query.bind(pglite);
  pglite.query = (async (text: string, parameters?: unknown[], options?: unknown) => {
    assertBindable(parameters);
    return options === undefined
      ? statements.query(text, parameters ?? [])
      : query(text, parameters, options as Parameters<typeof query>[2]);
  }) as typeof pglite.query;
  return pglite;
}

/**
 * What `pglite.transaction()` sent, reported through Kysely's query log as the pg driver reports
 * its own BEGIN and COMMIT, so that statement counts agree on both databases. Never sent again.
 */
const SENT_BY_PGLITE = {
  begin: CompiledQuery.raw('begin'),
  commit: CompiledQuery.raw('commit'),
  rollback: CompiledQuery.raw('rollback'),
};
const alreadySent = new Set<CompiledQuery>(Object.values(SENT_BY_PGLITE));

class PGliteConnection implements DatabaseConnection {
  private tx: Transaction | undefined;
  private finish: ((commit: boolean) => void) | undefined;
  private ended: Promise<unknown> | undefined;

  private readonly statements: PGliteStatements;

  constructor(private readonly pglite: PGlite) {
    this.statements = statementsOf(pglite);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    if (alreadySent.has(compiled)) return { rows: [] };
    assertBindable(compiled.parameters);
    const result = await this.statements.query<R>(compiled.sql, compiled.parameters, this.tx);
    return result.affectedRows
      ? { rows: result.rows, numAffectedRows: BigInt(result.affectedRows) }
      : { rows: result.rows };
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize = 100): AsyncIterableIterator<QueryResult<R>> {
    const { rows } = await this.executeQuery<R>(compiled);
    for (let i = 0; i < rows.length; i += chunkSize) yield { rows: rows.slice(i, i + chunkSize) };
  }

  begin(settings: TransactionSettings): Promise<void> {
    return new Promise<void>((begun, failedToBegin) => {
      this.ended = this.pglite
        .transaction(async (tx) => {
          if (settings.isolationLevel) await tx.query(`set transaction isolation level ${settings.isolationLevel}`);
          this.tx = tx;
          const commit = await new Promise<boolean>((resolve) => {
            this.finish = resolve;
            begun();
          });
          if (!commit) throw ROLLBACK;
        })
        .catch((error: unknown) => {
          if (error !== ROLLBACK) throw error;
        })
        .finally(() => {
          this.tx = undefined;
          this.finish = undefined;
        });
      this.ended.catch(failedToBegin);
    });
  }

  async end(commit: boolean) {
    const ended = this.ended;
    this.finish?.(commit);
    this.ended = undefined;
    await ended;
  }
}

class PGliteDriver implements Driver {
  private connection: PGliteConnection;
  private holder: Promise<void> = Promise.resolve();

  constructor(private readonly pglite: PGlite) {
    this.connection = new PGliteConnection(pglite);
  }

  async init() {}

  /** One connection, handed out to one holder at a time, as a single-session database has. */
  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const previous = this.holder;
    this.holder = new Promise<void>((resolve) => (release = resolve));
    await previous;
    (this.connection as PGliteConnection & { release?: () => void }).release = release;
    return this.connection;
  }

  async releaseConnection(connection: DatabaseConnection) {
    (connection as PGliteConnection & { release?: () => void }).release?.();
  }

  // `connection.executeQuery` is the one Kysely wrapped with its query log.
  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    await (connection as PGliteConnection).begin(settings);
    await connection.executeQuery(SENT_BY_PGLITE.begin);
  }

  async commitTransaction(connection: DatabaseConnection) {
    await (connection as PGliteConnection).end(true);
    await connection.executeQuery(SENT_BY_PGLITE.commit);
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    await (connection as PGliteConnection).end(false);
    await connection.executeQuery(SENT_BY_PGLITE.rollback);
  }

  async destroy() {
    if (!this.pglite.closed) await this.pglite.close();
  }
}

export class HeraldPGliteDialect implements Dialect {
  constructor(readonly pglite: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PGliteDriver(this.pglite);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
