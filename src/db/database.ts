import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, type LogEvent, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './types.js';
import { GuardedClient } from './guarded-client.js';
import { guardParameterCount, HeraldPGliteDialect } from './pglite-dialect.js';
import { PLANNED_EACH_TIME } from './planned-each-time.js';

/** Any handle: the pool, or a transaction (a read may run on either). */
export type Db = Kysely<Database>;
/**
 * A handle that is a transaction: functions that lock rows, write several statements that must
 * stand or fall together, or NOTIFY take this, so passing the pool does not compile.
 */
export type Trx = Transaction<Database>;
/**
 * The options of a read that may lock what it reads (`for update` until the transaction ends): `lock: true`
 * compiles only on a `Trx`.
 */
export type LockOption<H extends Db> = H extends Trx ? { lock?: boolean } : { lock?: false };
/** Which database Herald runs on: PostgreSQL (`DATABASE_URL`) or the embedded PGlite. */
export type DatabaseKind = 'postgres' | 'embedded';

export interface DatabaseOptions {
  /** PostgreSQL connection string; without it the embedded database (PGlite) is used. */
  url?: string;
  poolSize?: number;
  /** Embedded database folder; `memory://` keeps it in memory (tests). */
  dataDir?: string;
  /** Embedded database: start from this dump (`PGlite.dumpDataDir`) instead of an empty database (tests). */
  loadDataDir?: Blob;
  /** How long a request waits for a connection before failing. */
  timeoutMs?: number;
  /**
   * PostgreSQL: the longest a statement may run (server side), and, a little later, the longest the
   * client waits for its answer (a half-open connection cannot hang a request). None when unset.
   */
  statementTimeoutMs?: number;
  /** Called for every statement sent: tests count round trips with it. */
  onQuery?: (event: LogEvent) => void;
  /** PostgreSQL: send repeated statements as named prepared statements (default true). */
  preparedStatements?: boolean;
}

export interface DatabaseHandle {
  db: Db;
  kind: DatabaseKind;
  /** The embedded database itself: the durable queue talks to it beside Kysely (src/engine/queue.ts). */
  pglite?: PGlite;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;
/** int8 and numeric come back as JS numbers on both databases (ids and counts stay far below 2^53). */
const toNumber = (value: string) => Number(value);

export { MAX_BIND_PARAMETERS } from './bind-limit.js';

/** At most this many statements get a name; each connection then holds at most this many plans. */
export const PREPARED_STATEMENT_LIMIT = 200;

export { PLANNED_EACH_TIME } from './planned-each-time.js';

/**
 * Names the statements Herald sends again and again (its own parameterised SQL), so PostgreSQL
 * parses and plans each once per connection instead of on every request: on a primary-key read
 * that halved the database's CPU per request (BENCHMARKS.md). A statement earns a name on its
 * second execution (one-off SQL, such as segment queries typed once, never does), names are
 * bounded, and statements without parameters (BEGIN, COMMIT, …) are left alone.
 */
export function namePreparedStatements(pool: pg.Pool, limit = PREPARED_STATEMENT_LIMIT) {
  const names = new Map<string, string>();
  const seenOnce = new Set<string>();
  const nameFor = (text: string): string | undefined => {
    if (text.endsWith(PLANNED_EACH_TIME)) return undefined;
    const known = names.get(text);
    if (known !== undefined || names.size >= limit) return known;
    if (!seenOnce.has(text)) {
      if (seenOnce.size >= 10 * limit) seenOnce.clear();
      seenOnce.add(text);
      return undefined;
    }
    seenOnce.delete(text);
    const name = `herald_${names.size + 1}`;
    names.set(text, name);
    return name;
  };
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((config: unknown, values?: unknown, callback?: unknown) => {
      const name =
        typeof config === 'string' && Array.isArray(values) && values.length > 0 ? nameFor(config) : undefined;
      return name === undefined ? query(config, values, callback) : query({ name, text: config, values }, callback);
    }) as typeof client.query;
  });
}

function postgresDialect(options: DatabaseOptions & { url: string }) {
  const statementTimeout = options.statementTimeoutMs;
  const pool = new pg.Pool({
    Client: GuardedClient,
    connectionString: options.url,
    // JIT compiles a plan whose estimated cost passes jit_above_cost: ~120 ms of LLVM for a bulk
    // write that runs in 4 ms once the planner overestimates its JSON lists (BENCHMARKS.md). Herald's
    // statements are short; an `options` parameter in DATABASE_URL still wins over this.
    options: '-c jit=off',
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.timeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(statementTimeout
      ? {
          statement_timeout: statementTimeout,
          idle_in_transaction_session_timeout: statementTimeout,
          query_timeout: statementTimeout + 1000,
        }
      : {}),
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? toNumber
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  if (options.preparedStatements !== false) namePreparedStatements(pool);
  return new PostgresDialect({ pool });
}

function embeddedDialect(options: DatabaseOptions) {
  const dataDir = options.dataDir ?? './data';
  if (!dataDir.startsWith('memory://')) mkdirSync(dataDir, { recursive: true });
  const pglite = new PGlite(dataDir, {
    parsers: { [INT8_OID]: toNumber, [NUMERIC_OID]: toNumber },
    loadDataDir: options.loadDataDir,
  });
  return new HeraldPGliteDialect(guardParameterCount(pglite));
}

export function createDatabase(options: DatabaseOptions): DatabaseHandle {
  const kind: DatabaseKind = options.url ? 'postgres' : 'embedded';
  const dialect = options.url ? postgresDialect({ ...options, url: options.url }) : embeddedDialect(options);
  const onQuery = options.onQuery;
  const db = new Kysely<Database>({
    dialect,
    log: onQuery ? (event) => void (event.level === 'query' && onQuery(event)) : undefined,
  });
  return dialect instanceof HeraldPGliteDialect ? { db, kind, pglite: dialect.pglite } : { db, kind };
}
