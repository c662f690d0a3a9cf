import { CompiledQuery, sql } from 'kysely';
import type { Db } from '../db/database.js';
import { SEGMENT_COLUMNS } from './allow-lists.js';
import { segmentQueryError } from './query-error.js';

/** Rows a dry run returns at most (interface.md, Limits). */
export const SEGMENT_ROW_LIMIT = 10;
/** The role segment queries run as: it may read the two workspace-scoped views and nothing else (migration 40). */
export const SEGMENT_ROLE = 'herald_segment';
/** Memory a sort or hash may use before spilling to disk. */
export const SEGMENT_WORK_MEM = '4MB';

const PREFIX = 'select q.distinct_id, row_to_json(q.*) as "row" from (\n';
const SUFFIX = '\n) as q limit $1';

/**
 * The SQL that runs: the caller's statement as a subquery, so the database stops after 10 rows,
 * with `q.distinct_id` named so a result without (or with two) distinct_id columns fails. Rows
 * leave as row_to_json, so both engines give the same JSON types (timestamps as ISO strings with
 * offset, arrays, jsonb objects). The limit is a parameter, which also forces the extended
 * protocol: PostgreSQL then refuses more than one statement whatever the text holds.
 */
export function segmentSql(statement: string) {
  return { sql: `${PREFIX}${statement}${SUFFIX}`, parameters: [SEGMENT_ROW_LIMIT] };
}

/** One result row: distinct_id and whatever else the query selected. */
export type SegmentRow = { distinct_id: unknown } & Record<string, unknown>;

export interface SegmentRunOptions {
  workspaceId: number;
  timeoutMs: number;
}

const validColumns = Object.entries(SEGMENT_COLUMNS)
  .map(([relation, columns]) => `valid ${relation} columns: ${columns.join(', ')}`)
  .join('; ');

/** Error classes that describe the query, not the server: data, syntax/access, limits, resources. */
const QUERY_ERROR_CLASSES = new Set(['21', '22', '25', '2F', '38', '39', '42', '53', '54', '0A']);

function queryError(error: unknown, options: SegmentRunOptions): unknown {
  const e = error as { code?: string; message?: string; position?: string | number };
  if (typeof e.code !== 'string') return error;
  if (e.code === '57014') return segmentQueryError(`the query took too long (more than ${options.timeoutMs} ms); narrow it down`);
  const position = Number(e.position ?? 0);
  const inWrapper = position > 0 && position <= PREFIX.length;
  if (inWrapper && e.code === '42703') return segmentQueryError('the query must return a distinct_id column');
  if (inWrapper && e.code === '42702') return segmentQueryError('the query returns more than one distinct_id column; keep one');
  if (!QUERY_ERROR_CLASSES.has(e.code.slice(0, 2))) return error;
  const at = position > PREFIX.length ? ` (position ${position - PREFIX.length})` : '';
  if (e.code === '42703') return segmentQueryError(`${e.message}${at}; ${validColumns}`);
  return segmentQueryError(`${e.message}${at}`);
}

/**
 * Runs a checked statement with the database's own defences around it: a READ ONLY transaction,
 * a statement timeout and a work_mem bound, the `herald_segment` role (which can read only the
 * `segment` views), a search_path of that schema, and the caller's workspace set for the views to
 * filter on. Every setting is transaction-local, so the pooled connection returns unchanged.
 */
export async function runSegmentQuery(db: Db, statement: string, options: SegmentRunOptions): Promise<SegmentRow[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select
      set_config('transaction_read_only', 'on', true),
      set_config('statement_timeout', ${String(options.timeoutMs)}, true),
      set_config('work_mem', ${SEGMENT_WORK_MEM}, true),
      set_config('TimeZone', 'UTC', true),
      set_config('standard_conforming_strings', 'on', true),
      set_config('herald.workspace_id', ${String(options.workspaceId)}, true),
      set_config('search_path', 'segment, pg_temp', true),
      set_config('role', ${SEGMENT_ROLE}, true)`.execute(trx);
    const { sql: text, parameters } = segmentSql(statement);
    try {
      const result = await trx.executeQuery<{ row: SegmentRow }>(CompiledQuery.raw(text, parameters));
      return result.rows.map((row) => row.row);
    } catch (error) {
      throw queryError(error, options);
    }
  });
}
