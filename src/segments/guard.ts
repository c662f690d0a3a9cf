// The PostgreSQL parser (WebAssembly), loaded at the first segment query rather than at the start.
let libpgQuery: Promise<typeof import('libpg-query')> | undefined;
import { segmentQueryError } from './query-error.js';
import { segmentSql, wrappedStatementOf } from './runner.js';
import { Refusal, walkQuery, type Body, type TaggedNode } from './walk.js';

/** A query the guard accepted: its one statement, exactly as it will run inside the runner's wrapper. */
export interface CheckedSegmentQuery {
  statement: string;
}

interface ParseResult {
  stmts?: { stmt: TaggedNode; stmt_location?: number; stmt_len?: number }[];
}

const STATEMENT_KINDS: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CopyStmt: 'COPY',
  VariableSetStmt: 'SET',
  VariableShowStmt: 'SHOW',
  TransactionStmt: 'transaction control',
  ExplainStmt: 'EXPLAIN',
  LockStmt: 'LOCK',
  CallStmt: 'CALL',
  DoStmt: 'DO',
  CreateTableAsStmt: 'CREATE TABLE AS',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
};

const kindOf = (type: string) =>
  STATEMENT_KINDS[type] ??
  (/^(Create|Alter|Drop|Grant|Comment|Rename|Truncate|Reindex|Vacuum)/.test(type) ? 'DDL' : type.replace(/Stmt$/, ''));

async function parseOrRefuse(sql: string): Promise<ParseResult> {
  try {
    const { parse } = await (libpgQuery ??= import('libpg-query'));
    return (await parse(sql)) as ParseResult;
  } catch (error) {
    const { hasSqlDetails } = await (libpgQuery ??= import('libpg-query'));
    if (hasSqlDetails(error)) {
      // 1-based character position, as PostgreSQL reports it.
      throw new Refusal(`${error.sqlDetails.message} (position ${error.sqlDetails.cursorPosition + 1})`);
    }
    throw new Refusal(`the query could not be parsed: ${(error as Error).message}`);
  }
}

/** The statement's own text: the parser reports byte offsets, and leaves the trailing semicolon out. */
function statementText(sql: string, location = 0, length = 0): string {
  const bytes = Buffer.from(sql, 'utf8');
  return bytes.subarray(location, length > 0 ? location + length : undefined).toString('utf8');
}

/** Deep copy without source positions, to compare two trees parsed from differently placed text. */
const withoutLocations = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutLocations)
    : value && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => key !== 'location')
            .map(([key, v]) => [key, withoutLocations(v)]),
        )
      : value;

/**
 * The name PostgreSQL gives an output column written without AS (FigureColname), or null when it
 * cannot be told here (`*`, scalar subqueries): those are left to the runner, which asks the database.
 */
function outputName(node: TaggedNode | undefined): string | null {
  if (!node) return null;
  if (node.ColumnRef) {
    const fields = node.ColumnRef.fields as TaggedNode[];
    const last = fields[fields.length - 1]!;
    return last.A_Star ? null : String(last.String?.sval);
  }
  if (node.A_Indirection) {
    const last = (node.A_Indirection.indirection as TaggedNode[]).at(-1);
    return last?.String ? String(last.String.sval) : outputName(node.A_Indirection.arg as TaggedNode);
  }
  if (node.TypeCast) return outputName(node.TypeCast.arg as TaggedNode);
  if (node.CollateClause) return outputName(node.CollateClause.arg as TaggedNode);
  if (node.SubLink) return null;
  return '?column?';
}

/** Whether the result may hold a distinct_id column: false only when that is certain. */
function mayReturnDistinctId(select: Body): boolean {
  if (select.larg) return mayReturnDistinctId(select.larg as Body);
  if (select.valuesLists) return false;
  return ((select.targetList as TaggedNode[] | undefined) ?? []).some((target) => {
    const { name, val } = target.ResTarget as { name?: string; val?: TaggedNode };
    if (name !== undefined) return name === 'distinct_id';
    const figured = outputName(val);
    return figured === null || figured === 'distinct_id';
  });
}

/**
 * Checks a customer-written segment query with PostgreSQL's own parser and refuses, with a reason,
 * anything but one plain read of users, events and the query's own CTEs through allow-listed
 * functions, operators and types. The text that will run (the statement inside the runner's
 * wrapper) is parsed again and must hold exactly the tree that was checked.
 */
export async function checkSegmentQuery(query: string): Promise<CheckedSegmentQuery> {
  try {
    if (query.trim() === '') throw new Refusal('the query is empty');
    const parsed = await parseOrRefuse(query);
    const stmts = parsed.stmts ?? [];
    if (stmts.length === 0) throw new Refusal('the query is empty');
    if (stmts.length > 1) throw new Refusal(`the query must be a single statement (found ${stmts.length})`);
    const [raw] = stmts;
    const type = Object.keys(raw!.stmt)[0]!;
    const select = raw!.stmt.SelectStmt;
    if (!select) throw new Refusal(`only a SELECT query is allowed, not ${kindOf(type)}`);
    walkQuery(select);
    if (!mayReturnDistinctId(select)) throw new Refusal('the query must return a distinct_id column');

    const statement = statementText(query, raw!.stmt_location, raw!.stmt_len);
    const wrapped = (await parseOrRefuse(segmentSql(statement).sql)).stmts ?? [];
    const inner = wrapped.length === 1 ? wrappedStatementOf(wrapped[0]!.stmt) : undefined;
    if (!inner || JSON.stringify(withoutLocations(inner)) !== JSON.stringify(withoutLocations(raw!.stmt))) {
      throw new Refusal('the query cannot be run as a subquery');
    }
    return { statement };
  } catch (error) {
    if (error instanceof Refusal) throw segmentQueryError(error.message);
    throw error;
  }
}
