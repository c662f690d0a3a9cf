import { HttpError } from '../errors.js';
import { SEGMENT_COLUMNS } from './allow-lists.js';
import { segmentQueryError } from './query-error.js';

/** Rows a dry run returns at most (interface.md, Limits). */
export const SEGMENT_ROW_LIMIT = 10;
/** The role segment queries run as (migration 2026-11-26T10-segment-sandbox). */
export const SEGMENT_ROLE = 'herald_segments';
/** Memory a sort or hash may use before spilling to disk. */
export const SEGMENT_WORK_MEM = '4MB';

const PREFIX =
  'select coalesce(sum(octet_length(s.r)), 0)::int8 as bytes,\n' +
  "  case when coalesce(sum(octet_length(s.r)), 0) <= $2 then coalesce(array_agg(s.r), '{}') end as rows\n" +
  'from (select q.distinct_id, row_to_json(q.*)::text as r from (\n';
const SUFFIX = '\n) as q limit $1) as s';

/** What bounds one dry run: a caller's workspace and the limits of the configuration. */
export interface SegmentLimits {
  timeoutMs: number;
  maxResultBytes: number;
  maxPlanRows: number;
  maxPlanCost: number;
}

/**
 * The SQL that runs: the caller's statement as a subquery, so the database stops after 10 rows,
 * with `q.distinct_id` named so a result without (or with two) distinct_id columns fails. Rows
 * leave as row_to_json text, so both engines give the same JSON types. The database itself adds
 * up the rows' size and sends them only when they fit in `maxResultBytes`: an oversized answer is
 * never read into Herald's memory. The limits are parameters, which also forces the extended
 * protocol: PostgreSQL then refuses more than one statement whatever the text holds.
 */
export function segmentSql(statement: string, maxResultBytes = 0) {
  return { sql: `${PREFIX}${statement}${SUFFIX}`, parameters: [SEGMENT_ROW_LIMIT, maxResultBytes] };
}

/** The wrapper's parse tree holds the caller's statement here (the guard checks it was not escaped). */
export function wrappedStatementOf(tree: Record<string, any> | undefined): unknown {
  const outer = tree?.SelectStmt?.fromClause;
  if (outer?.length !== 1) return undefined;
  const middle = outer[0].RangeSubselect?.subquery?.SelectStmt?.fromClause;
  if (middle?.length !== 1) return undefined;
  return middle[0].RangeSubselect?.subquery;
}

/** One result row: distinct_id and whatever else the query selected. */
export type SegmentRow = { distinct_id: unknown } & Record<string, unknown>;

/** The wrapper's one answer row. */
export interface WrappedResult {
  bytes: number | string;
  rows: string[] | null;
}

export function rowsOf(result: WrappedResult | undefined, limits: SegmentLimits): SegmentRow[] {
  if (!result) return [];
  if (result.rows === null) {
    throw segmentQueryError(
      `the result is larger than ${limits.maxResultBytes} bytes (${Number(result.bytes)}); select fewer or smaller columns`,
    );
  }
  return result.rows.map((row) => JSON.parse(row) as SegmentRow);
}

interface PlanNode {
  'Total Cost'?: number;
  'Plan Rows'?: number;
  'Relation Name'?: string;
  'Node Type'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

/**
 * How much the planner underestimates each relation for this workspace. The views filter on a
 * workspace id the planner cannot see, so it assumes an average workspace (1/number of
 * workspaces of the rows); a workspace holding most of the rows is underestimated by that much
 * in every scan, and a join of six scans by that factor to the sixth power.
 */
export type RelationScale = Readonly<Record<string, number>>;

/** One query counting the workspace's rows through the views, whose plan shows the planner's guess for each. */
export const SIZE_PROBE =
  'select (select count(*) from users)::int8 as users, (select count(*) from events)::int8 as events';

export function relationScale(explain: unknown, counts: Record<string, unknown>): RelationScale {
  const estimates: Record<string, number> = {};
  const visit = (node: PlanNode | undefined, depth: number) => {
    if (!node || depth > 100) return;
    const relation = node['Relation Name'];
    if (relation) estimates[relation] = Math.max(estimates[relation] ?? 0, node['Plan Rows'] ?? 0);
    for (const child of node.Plans ?? []) visit(child, depth + 1);
  };
  visit(rootOf(explain), 0);
  return Object.fromEntries(
    Object.entries(estimates).map(([relation, estimate]) => [
      relation,
      Math.max(1, Number(counts[relation] ?? 0) / Math.max(1, estimate)),
    ]),
  );
}

const rootOf = (explain: unknown) =>
  ((Array.isArray(explain) ? explain[0] : undefined) as { Plan?: PlanNode } | undefined)?.Plan;

/** Plan nodes that make rows rather than read them: set-returning functions (row generators). */
const GENERATORS = new Set(['Function Scan', 'ProjectSet', 'Table Function Scan']);

/**
 * Refuses, before it runs, a plan whose work multiplies: what the bound exists for. Three figures,
 * each scaled by the underestimate of every scan beneath (RelationScale), against
 * `maxPlanRows`: the pairs a nested loop compares (a cross join, or a join on anything but
 * equality: a filter that keeps nothing still does all the work), the rows a row generator
 * makes, and the rows of a subquery times the rows it runs for (a correlated subquery); and the plan's total cost against `maxPlanCost` (which counts a LIMIT
 * the way the executor will). Reading a table, sorting, aggregating, and hash or merge joins on
 * equality are not counted by their rows: their work grows with the data the query reads, not
 * with a product of it, and the planner's guess of a join's output over the views is often far
 * off (users joined to 1,000,000 events on distinct_id: estimated 2,035,500 rows, about 4,000
 * in fact). The cost bound still sees them; on PostgreSQL the statement timeout ends whatever
 * runs too long, and the result cap bounds what comes back. On the embedded engine, which
 * nothing can interrupt, this is the bound on work.
 */
export function checkPlan(explain: unknown, limits: SegmentLimits, scale: RelationScale = {}): void {
  const root = rootOf(explain);
  if (!root) throw new Error('EXPLAIN gave no plan');
  const factors = new Map<PlanNode, number>();
  const factorOf = (node: PlanNode, depth: number): number => {
    if (depth > 1000) return 1;
    let factor = scale[node['Relation Name'] ?? ''] ?? 1;
    for (const child of node.Plans ?? []) factor *= factorOf(child, depth + 1);
    factors.set(node, factor);
    return factor;
  };
  factorOf(root, 0);
  const scaledRows = (node: PlanNode | undefined) => (node ? (node['Plan Rows'] ?? 0) * (factors.get(node) ?? 1) : 0);
  let rows = 0;
  const visit = (node: PlanNode, loops: number, depth: number) => {
    if (depth > 1000) return;
    const nodeRows = scaledRows(node);
    if (loops > 1 || GENERATORS.has(node['Node Type'] ?? '')) rows = Math.max(rows, nodeRows * loops);
    const children = node.Plans ?? [];
    if (node['Node Type'] === 'Nested Loop') {
      const outer = children.find((child) => child['Parent Relationship'] === 'Outer');
      const inner = children.find((child) => child['Parent Relationship'] === 'Inner');
      rows = Math.max(rows, scaledRows(outer) * scaledRows(inner) * loops);
    }
    for (const child of children) {
      const perRow = child['Parent Relationship'] === 'SubPlan';
      visit(child, perRow ? loops * Math.max(1, nodeRows) : loops, depth + 1);
    }
  };
  visit(root, 1, 0);
  const cost = (root['Total Cost'] ?? 0) * (factors.get(root) ?? 1);
  if (rows > limits.maxPlanRows || cost > limits.maxPlanCost) {
    throw segmentQueryError(
      `the query is estimated to be too expensive (${Math.round(rows)} rows, cost ${Math.round(cost)}; ` +
        `at most ${limits.maxPlanRows} rows and cost ${limits.maxPlanCost}); narrow it down`,
    );
  }
}

/** The EXPLAIN answer as both drivers give it: one row, one column, JSON (parsed or not). */
export function planOf(rows: Record<string, unknown>[]): unknown {
  const value = rows[0] ? Object.values(rows[0])[0] : undefined;
  return typeof value === 'string' ? JSON.parse(value) : value;
}

const validColumns = Object.entries(SEGMENT_COLUMNS)
  .map(([relation, columns]) => `valid ${relation} columns: ${columns.join(', ')}`)
  .join('; ');

/** Error classes that describe the query, not the server: data, syntax/access, limits, resources. */
const QUERY_ERROR_CLASSES = new Set(['21', '22', '25', '2F', '38', '39', '42', '53', '54', '0A']);

const EXPLAIN = 'explain (format json) ';

/** Asks the planner for its estimate first; its errors point into the caller's text like the query's would. */
export async function explainFirst(
  query: (text: string) => Promise<Record<string, unknown>[]>,
  text: string,
  limits: SegmentLimits,
  scale: RelationScale,
) {
  const rows = await query(`${EXPLAIN}${text}`).catch((error: unknown) => {
    throw queryError(error, limits, EXPLAIN.length);
  });
  checkPlan(planOf(rows), limits, scale);
}

/** How long a workspace's sizes are trusted before they are counted again. */
const SCALE_TTL_MS = 60_000;

/** Each workspace's RelationScale, measured inside the sandbox and kept for a minute. */
export class RelationScales {
  private readonly known = new Map<number, { scale: RelationScale; at: number }>();

  async of(workspaceId: number, query: (text: string) => Promise<Record<string, unknown>[]>): Promise<RelationScale> {
    const cached = this.known.get(workspaceId);
    if (cached && Date.now() - cached.at < SCALE_TTL_MS) return cached.scale;
    const plan = planOf(await query(`${EXPLAIN}${SIZE_PROBE}`));
    const [counts] = await query(SIZE_PROBE);
    const scale = relationScale(plan, counts ?? {});
    if (this.known.size >= 10_000) this.known.clear();
    this.known.set(workspaceId, { scale, at: Date.now() });
    return scale;
  }
}

/** A database error the query caused, as the dry run's 400; anything else is returned unchanged. */
export function queryError(error: unknown, limits: SegmentLimits, offset = 0): unknown {
  if (error instanceof HttpError) return error;
  const e = error as { code?: string; message?: string; position?: string | number };
  if (typeof e.code !== 'string') return error;
  if (e.code === '57014')
    return segmentQueryError(`the query took too long (more than ${limits.timeoutMs} ms); narrow it down`);
  const position = Number(e.position ?? 0) - offset;
  const inWrapper = position > 0 && position <= PREFIX.length;
  if (inWrapper && e.code === '42703') return segmentQueryError('the query must return a distinct_id column');
  if (inWrapper && e.code === '42702')
    return segmentQueryError('the query returns more than one distinct_id column; keep one');
  if (!QUERY_ERROR_CLASSES.has(e.code.slice(0, 2))) return error;
  const at = position > PREFIX.length ? ` (position ${position - PREFIX.length})` : '';
  if (e.code === '42703') return segmentQueryError(`${e.message}${at}; ${validColumns}`);
  return segmentQueryError(`${e.message}${at}`);
}

/** Runs a statement the guard accepted, inside the database's own barrier (one per engine). */
export interface SegmentRunner {
  run(statement: string, workspaceId: number): Promise<SegmentRow[]>;
  close(): Promise<void>;
}
