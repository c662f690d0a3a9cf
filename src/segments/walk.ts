import {
  GROWING_FUNCTIONS,
  JSON_PATH_OPERATORS,
  MAX_FORMAT_WIDTH,
  SEGMENT_COLUMNS,
  SET_RETURNING_FUNCTIONS,
  ALLOWED_FUNCTIONS,
  ALLOWED_OPERATORS,
  ALLOWED_SQL_VALUE_FUNCTIONS,
  ALLOWED_TYPES,
  SEGMENT_RELATIONS,
  SQL_SYNTAX_FUNCTIONS,
  SYSTEM_COLUMNS,
} from './allow-lists.js';

/** A parse-tree node as libpg-query writes it: `{TypeName: {field: …}}`; `{}` stands for a null node. */
export type TaggedNode = Record<string, Body>;
export type Body = Record<string, unknown>;

/** Why a query is refused, in words a caller can act on; the guard turns it into the 400. */
export class Refusal extends Error {}

/** Deep enough for any real segment query; a deeper tree is refused before anything recurses further. */
export const MAX_DEPTH = 200;

/**
 * How a field of a node is walked: a tagged node, a list of them, a scalar to ignore, or an
 * untagged node of a known type (the parser writes some fields, such as TypeCast.typeName, bare).
 */
type Field = 'node' | 'nodes' | 'skip' | 'TypeName' | 'Alias' | 'WindowDef' | 'SelectStmt';

interface Rule {
  fields: Record<string, Field>;
  check?: (body: Body) => void;
}

const strings = (nodes: unknown): string[] =>
  ((nodes as TaggedNode[] | undefined) ?? []).map((node) =>
    node.String ? String(node.String.sval ?? '') : node.A_Star ? '*' : '?',
  );

function checkOperator(name: unknown) {
  const parts = strings(name);
  if (parts.length !== 1) throw new Refusal(`schema-qualified operator OPERATOR(${parts.join('.')}) is not allowed`);
  if (!ALLOWED_OPERATORS.has(parts[0]!)) throw new Refusal(`operator ${parts[0]} is not allowed`);
}

/**
 * An argument whose size the stored data or the query's own text bounds: a column, a constant,
 * a cast of one, or a json path taken from one. A row generator over anything else (a string
 * built by format, split by string_to_array …) could yield as many rows as the caller likes.
 */
function dataBounded(node: TaggedNode | undefined): boolean {
  if (!node) return true;
  if (node.ColumnRef || node.A_Const) return true;
  if (node.TypeCast) return dataBounded(node.TypeCast.arg as TaggedNode);
  if (node.CollateClause) return dataBounded(node.CollateClause.arg as TaggedNode);
  if (node.A_ArrayExpr) return ((node.A_ArrayExpr.elements as TaggedNode[] | undefined) ?? []).every(dataBounded);
  if (node.CoalesceExpr) return ((node.CoalesceExpr.args as TaggedNode[] | undefined) ?? []).every(dataBounded);
  if (node.A_Expr) {
    const op = strings(node.A_Expr.name).join('.');
    return (
      node.A_Expr.kind === 'AEXPR_OP' &&
      JSON_PATH_OPERATORS.has(op) &&
      dataBounded(node.A_Expr.lexpr as TaggedNode) &&
      dataBounded(node.A_Expr.rexpr as TaggedNode)
    );
  }
  return false;
}

/** format()'s pattern must be a literal whose widths are small: `%*s` and `%100000000s` allocate what the caller asks. */
function checkFormatPattern(args: TaggedNode[] | undefined) {
  const pattern = args?.[0]?.A_Const?.sval as { sval?: string } | undefined;
  if (typeof pattern?.sval !== 'string') throw new Refusal('format() takes a literal pattern');
  for (const spec of pattern.sval.matchAll(/%(?:\d+\$)?-?(\*|\d*)/g)) {
    const width = spec[1] ?? '';
    if (width === '*' || Number(width) > MAX_FORMAT_WIDTH)
      throw new Refusal(`format() widths are limited to ${MAX_FORMAT_WIDTH} and cannot be given as *`);
  }
}

/** Functions whose result may be many times their input; nested, they grow exponentially. */
function checkGrowth(name: string, args: TaggedNode[] | undefined) {
  if (!GROWING_FUNCTIONS.has(name)) return;
  const inner = JSON.stringify(args ?? []);
  for (const other of GROWING_FUNCTIONS) {
    if (inner.includes(`{"String":{"sval":"${other}"}}`))
      throw new Refusal(`${name}() cannot take the result of ${other}(): nested, they can build values of any size`);
  }
}

function checkFunction(body: Body) {
  const parts = strings(body.funcname);
  const name = parts[parts.length - 1]!;
  const args = body.args as TaggedNode[] | undefined;
  if (parts.length === 1 && SET_RETURNING_FUNCTIONS.has(name) && !(args ?? []).every(dataBounded)) {
    throw new Refusal(`${name}() may only expand a column, a constant or a json path of one, not a computed value`);
  }
  if (parts.length === 1 && name === 'format') checkFormatPattern(args);
  if (parts.length === 1) checkGrowth(name, args);
  if (parts.length === 1 && ALLOWED_FUNCTIONS.has(name)) return;
  // Only the parser writes these qualified names (EXTRACT, SUBSTRING … FROM, AT TIME ZONE, SIMILAR TO …).
  const sqlSyntax = body.funcformat === 'COERCE_SQL_SYNTAX' || name === 'similar_to_escape';
  if (parts.length === 2 && parts[0] === 'pg_catalog' && sqlSyntax && SQL_SYNTAX_FUNCTIONS.has(name)) return;
  throw new Refusal(`function ${parts.join('.')} is not allowed`);
}

function checkType(body: Body) {
  const parts = strings(body.names);
  const name = parts[parts.length - 1]!;
  if (body.setof || body.pct_type) throw new Refusal(`type ${parts.join('.')} is not allowed`);
  // Standard SQL type names (integer, timestamp with time zone, …) come out of the parser as pg_catalog.x.
  const known = parts.length === 1 || (parts.length === 2 && parts[0] === 'pg_catalog');
  if (!known || !ALLOWED_TYPES.has(name)) throw new Refusal(`type ${parts.join('.')} is not allowed`);
}

function checkColumn(body: Body) {
  const parts = strings(body.fields);
  if (parts.length > 2) throw new Refusal(`schema-qualified name ${parts.join('.')} is not allowed`);
  const column = parts[parts.length - 1]!;
  if (SYSTEM_COLUMNS.has(column)) throw new Refusal(`system column ${column} is not allowed`);
  // PostgreSQL reads `a.f`, when f is not a column of a, as the call f(a): only real columns pass.
  if (parts.length === 2) {
    const [relation] = parts as [string, string];
    if (!names().relations.has(relation))
      throw new Refusal(`${relation}.${column}: "${relation}" is not a relation of the query`);
    if (column !== '*' && !names().columns.has(column))
      throw new Refusal(`${relation}.${column}: "${column}" is not a column of users, events or the query`);
  }
}

/** The relation names and column names a query defines, gathered before the walk (see queryNames). */
interface QueryNames {
  relations: ReadonlySet<string>;
  columns: ReadonlySet<string>;
}

let current: QueryNames | undefined;
const names = (): QueryNames => {
  if (!current) throw new Error('walkQuery sets the query names');
  return current;
};

/**
 * Every name that can stand for a relation (tables, CTEs, aliases, functions in FROM) and every
 * name a column can have (the views' columns, output names, alias column lists, column
 * definitions, the columns of row-returning functions) anywhere in the query. A union over the
 * whole query, so a few names are accepted where PostgreSQL would find no such column; those
 * still cannot be a function call outside the allow-list (see docs/segments.md).
 */
export function queryNames(tree: unknown): QueryNames {
  const relations = new Set<string>();
  const columns = new Set<string>(['key', 'value', 'ordinality', 'path']);
  for (const list of Object.values(SEGMENT_COLUMNS)) for (const column of list) columns.add(column);
  const visit = (value: unknown, depth: number): void => {
    if (depth > 2 * MAX_DEPTH + 10 || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.forEach((item) => visit(item, depth + 1));
    const node = value as TaggedNode;
    if (node.RangeVar) relations.add(String(node.RangeVar.relname));
    if (node.CommonTableExpr) relations.add(String(node.CommonTableExpr.ctename));
    if (node.ResTarget?.name !== undefined) columns.add(String(node.ResTarget.name));
    if (node.ColumnDef) columns.add(String(node.ColumnDef.colname));
    if (node.RangeFunction) {
      for (const item of (node.RangeFunction.functions as TaggedNode[] | undefined) ?? []) {
        const call = ((item.List?.items as TaggedNode[] | undefined) ?? [])[0]?.FuncCall;
        const fname = call ? strings(call.funcname).at(-1) : undefined;
        if (fname) (relations.add(fname), columns.add(fname));
      }
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === 'alias' || key === 'join_using_alias') {
        const alias = child as Body;
        relations.add(String(alias.aliasname));
        columns.add(String(alias.aliasname));
        for (const column of strings(alias.colnames)) columns.add(column);
      }
      if (key === 'aliascolnames') for (const column of strings(child)) columns.add(column);
      if (key === 'targetList') {
        for (const target of (child as unknown as TaggedNode[] | undefined) ?? []) {
          const figured = outputNameOf(target.ResTarget?.val as TaggedNode | undefined);
          if (figured) columns.add(figured);
        }
      }
      if (key === 'valuesLists') {
        const rows = (child as unknown as TaggedNode[] | undefined) ?? [];
        const width = Math.max(0, ...rows.map((row) => (row.List?.items as unknown[] | undefined)?.length ?? 0));
        for (let i = 1; i <= width; i += 1) columns.add(`column${i}`);
      }
      visit(child, depth + 1);
    }
  };
  visit(tree, 0);
  return { relations, columns };
}

/** The name PostgreSQL gives an output column written without AS, when it is a plain name. */
function outputNameOf(node: TaggedNode | undefined): string | undefined {
  if (!node) return undefined;
  // A qualified name is a column only if it is one elsewhere: `u.f` must not vouch for itself.
  if (node.ColumnRef) {
    const parts = strings(node.ColumnRef.fields);
    return parts.length === 1 ? parts[0] : undefined;
  }
  if (node.FuncCall) return strings(node.FuncCall.funcname).at(-1);
  if (node.TypeCast) return outputNameOf(node.TypeCast.arg as TaggedNode);
  return undefined;
}

/** Walks a whole query with the names it defines known (for `alias.column` checks). */
export function walkQuery(select: Body): void {
  current = queryNames(select);
  try {
    walkSelect(select, new Set(), 0);
  } finally {
    current = undefined;
  }
}

const leaf: Rule = { fields: {} };
const expr = (fields: Record<string, Field>, check?: (body: Body) => void): Rule => ({
  fields: { xpr: 'skip', location: 'skip', ...fields },
  check,
});

const ALLOWED_EXPR_KINDS = new Set([
  'AEXPR_OP',
  'AEXPR_OP_ANY',
  'AEXPR_OP_ALL',
  'AEXPR_DISTINCT',
  'AEXPR_NOT_DISTINCT',
  'AEXPR_NULLIF',
  'AEXPR_IN',
  'AEXPR_LIKE',
  'AEXPR_ILIKE',
  'AEXPR_SIMILAR',
  'AEXPR_BETWEEN',
  'AEXPR_NOT_BETWEEN',
  'AEXPR_BETWEEN_SYM',
  'AEXPR_NOT_BETWEEN_SYM',
]);
const ALLOWED_SUBLINKS = new Set([
  'EXISTS_SUBLINK',
  'ALL_SUBLINK',
  'ANY_SUBLINK',
  'ROWCOMPARE_SUBLINK',
  'EXPR_SUBLINK',
  'ARRAY_SUBLINK',
]);

/** Every node type a segment query may contain, with every field it may carry. Anything else is refused. */
const RULES: Record<string, Rule> = {
  String: { fields: { sval: 'skip' } },
  Integer: { fields: { ival: 'skip' } },
  Float: { fields: { fval: 'skip' } },
  Boolean: { fields: { boolval: 'skip' } },
  BitString: { fields: { bsval: 'skip' } },
  A_Star: leaf,
  List: { fields: { items: 'nodes' } },
  A_Const: expr({ ival: 'skip', fval: 'skip', boolval: 'skip', sval: 'skip', bsval: 'skip', isnull: 'skip' }),
  ColumnRef: expr({ fields: 'nodes' }, checkColumn),
  ResTarget: expr({ name: 'skip', indirection: 'nodes', val: 'node' }),
  A_Expr: expr({ kind: 'skip', name: 'skip', lexpr: 'node', rexpr: 'node' }, (body) => {
    if (!ALLOWED_EXPR_KINDS.has(String(body.kind))) throw new Refusal(`expression ${String(body.kind)} is not allowed`);
    if (!String(body.kind).includes('BETWEEN')) checkOperator(body.name);
  }),
  BoolExpr: expr({ boolop: 'skip', args: 'nodes' }),
  FuncCall: expr(
    {
      funcname: 'skip',
      args: 'nodes',
      agg_order: 'nodes',
      agg_filter: 'node',
      over: 'WindowDef',
      agg_within_group: 'skip',
      agg_star: 'skip',
      agg_distinct: 'skip',
      func_variadic: 'skip',
      funcformat: 'skip',
    },
    checkFunction,
  ),
  NamedArgExpr: expr({ arg: 'node', name: 'skip', argnumber: 'skip' }),
  TypeCast: expr({ arg: 'node', typeName: 'TypeName' }),
  TypeName: expr(
    {
      names: 'skip',
      typeOid: 'skip',
      setof: 'skip',
      pct_type: 'skip',
      typmods: 'nodes',
      typemod: 'skip',
      arrayBounds: 'nodes',
    },
    checkType,
  ),
  SubLink: expr(
    { subLinkType: 'skip', subLinkId: 'skip', testexpr: 'node', operName: 'skip', subselect: 'node' },
    (body) => {
      if (!ALLOWED_SUBLINKS.has(String(body.subLinkType)))
        throw new Refusal(`subquery kind ${String(body.subLinkType)} is not allowed`);
      if (body.operName) checkOperator(body.operName);
    },
  ),
  CaseExpr: expr({ casetype: 'skip', casecollid: 'skip', arg: 'node', args: 'nodes', defresult: 'node' }),
  CaseWhen: expr({ expr: 'node', result: 'node' }),
  CoalesceExpr: expr({ coalescetype: 'skip', coalescecollid: 'skip', args: 'nodes' }),
  MinMaxExpr: expr({ minmaxtype: 'skip', minmaxcollid: 'skip', inputcollid: 'skip', op: 'skip', args: 'nodes' }),
  NullTest: expr({ arg: 'node', nulltesttype: 'skip', argisrow: 'skip' }),
  BooleanTest: expr({ arg: 'node', booltesttype: 'skip' }),
  A_ArrayExpr: expr({ elements: 'nodes' }),
  A_Indirection: expr({ arg: 'node', indirection: 'nodes' }, (body) => {
    // `(expr).f` means f(expr) whenever expr has no field f: PostgreSQL's attribute notation.
    for (const item of (body.indirection as TaggedNode[] | undefined) ?? []) {
      if (item.String) throw new Refusal(`field selection (…).${String(item.String.sval)} is not allowed`);
    }
  }),
  A_Indices: expr({ is_slice: 'skip', lidx: 'node', uidx: 'node' }),
  RowExpr: expr({ args: 'nodes', row_typeid: 'skip', row_format: 'skip', colnames: 'nodes' }),
  GroupingFunc: expr({ args: 'nodes', refs: 'skip', agglevelsup: 'skip' }),
  GroupingSet: expr({ kind: 'skip', content: 'nodes' }),
  CollateClause: expr({ arg: 'node', collname: 'skip' }, (body) => {
    if (strings(body.collname).length !== 1) throw new Refusal('schema-qualified collation names are not allowed');
  }),
  SQLValueFunction: expr({ op: 'skip', type: 'skip', typmod: 'skip' }, (body) => {
    if (!ALLOWED_SQL_VALUE_FUNCTIONS.has(String(body.op)))
      throw new Refusal(`${String(body.op).replace('SVFOP_', '')} is not allowed`);
  }),
  SortBy: expr({ node: 'node', sortby_dir: 'skip', sortby_nulls: 'skip', useOp: 'skip' }, (body) => {
    if (body.useOp) checkOperator(body.useOp);
  }),
  WindowDef: expr({
    name: 'skip',
    refname: 'skip',
    partitionClause: 'nodes',
    orderClause: 'nodes',
    frameOptions: 'skip',
    startOffset: 'node',
    endOffset: 'node',
  }),
  Alias: { fields: { aliasname: 'skip', colnames: 'nodes' } },
  RangeSubselect: { fields: { lateral: 'skip', subquery: 'node', alias: 'Alias' } },
  RangeFunction: {
    fields: {
      lateral: 'skip',
      ordinality: 'skip',
      is_rowsfrom: 'skip',
      functions: 'nodes',
      alias: 'Alias',
      coldeflist: 'nodes',
    },
  },
  ColumnDef: expr({ colname: 'skip', typeName: 'TypeName', is_local: 'skip' }),
  JoinExpr: {
    fields: {
      jointype: 'skip',
      isNatural: 'skip',
      larg: 'node',
      rarg: 'node',
      usingClause: 'nodes',
      join_using_alias: 'Alias',
      quals: 'node',
      alias: 'Alias',
      rtindex: 'skip',
    },
  },
};

/** Names for the constructs refused as a whole, so the reason reads as SQL rather than parser jargon. */
const REFUSED_CONSTRUCTS: Record<string, string> = {
  ParamRef: 'query parameters ($1)',
  XmlExpr: 'XML functions',
  XmlSerialize: 'XML functions',
  RangeTableSample: 'TABLESAMPLE',
  RangeTableFunc: 'XMLTABLE',
  JsonTable: 'JSON_TABLE',
  CTESearchClause: 'SEARCH clauses',
  CTECycleClause: 'CYCLE clauses',
};

const describe = (type: string) =>
  REFUSED_CONSTRUCTS[type] ??
  (type.startsWith('Json')
    ? 'SQL/JSON syntax'
    : type.endsWith('Stmt')
      ? 'statements inside a query'
      : `${type} syntax`);

/**
 * Walks a SELECT's whole tree: subqueries, CTEs, lateral joins, function arguments, casts.
 * `ctes` holds the names of the CTEs visible where a relation is named, as PostgreSQL scopes them,
 * so a CTE name can never be used to reach a catalog relation of the same name elsewhere.
 */
export function walkSelect(body: Body, ctes: ReadonlySet<string>, depth: number): void {
  if (depth > MAX_DEPTH) throw new Refusal(`the query is nested too deeply (more than ${MAX_DEPTH} levels)`);
  if (body.intoClause) throw new Refusal('SELECT … INTO is not allowed: the query may only read');
  if (body.lockingClause) throw new Refusal('FOR UPDATE/FOR SHARE is not allowed: the query may only read');
  let visible = ctes;
  if (body.withClause) visible = walkWith(body.withClause as Body, ctes, depth + 1);
  for (const [field, value] of Object.entries(body)) {
    if (
      value === undefined ||
      field === 'withClause' ||
      field === 'op' ||
      field === 'all' ||
      field === 'limitOption' ||
      field === 'groupDistinct'
    )
      continue;
    if (field === 'larg' || field === 'rarg') walkSelect(value as Body, visible, depth + 1);
    else if (SELECT_LISTS.has(field)) walkNodes(value, visible, depth + 1);
    else if (SELECT_NODES.has(field)) walkNode(value as TaggedNode, visible, depth + 1);
    else throw new Refusal(`unsupported SELECT clause ${field}`);
  }
}

const SELECT_LISTS = new Set([
  'distinctClause',
  'targetList',
  'fromClause',
  'groupClause',
  'windowClause',
  'valuesLists',
  'sortClause',
]);
const SELECT_NODES = new Set(['whereClause', 'havingClause', 'limitOffset', 'limitCount']);

const CTE_FIELDS = new Set(['ctename', 'aliascolnames', 'ctematerialized', 'ctequery', 'location']);

function walkWith(withClause: Body, outer: ReadonlySet<string>, depth: number): ReadonlySet<string> {
  if (withClause.recursive) throw new Refusal('WITH RECURSIVE is not allowed');
  const visible = new Set(outer);
  for (const node of (withClause.ctes as TaggedNode[] | undefined) ?? []) {
    const cte = node.CommonTableExpr;
    if (!cte) throw new Refusal('unsupported WITH clause');
    const query = cte.ctequery as TaggedNode | undefined;
    if (!query?.SelectStmt)
      throw new Refusal(`WITH ${String(cte.ctename)} must be a SELECT: data-changing statements are not allowed`);
    if (cte.search_clause || cte.cycle_clause) throw new Refusal('SEARCH and CYCLE clauses are not allowed');
    const unknown = Object.keys(cte).find((field) => !CTE_FIELDS.has(field));
    if (unknown) throw new Refusal(`unsupported WITH clause ${unknown}`);
    if (cte.aliascolnames) walkNodes(cte.aliascolnames, visible, depth + 1);
    // A non-recursive CTE sees the ones defined before it, never itself or later ones.
    walkSelect(query.SelectStmt, visible, depth + 1);
    visible.add(String(cte.ctename));
  }
  return visible;
}

function walkNodes(value: unknown, ctes: ReadonlySet<string>, depth: number) {
  if (!Array.isArray(value)) throw new Refusal('unexpected query structure');
  for (const node of value) walkNode(node as TaggedNode, ctes, depth);
}

function walkNode(node: TaggedNode, ctes: ReadonlySet<string>, depth: number) {
  const types = Object.keys(node);
  if (types.length === 0) return;
  if (types.length !== 1) throw new Refusal('unexpected query structure');
  walkBody(types[0]!, node[types[0]!]!, ctes, depth);
}

function walkBody(type: string, body: Body, ctes: ReadonlySet<string>, depth: number): void {
  if (depth > MAX_DEPTH) throw new Refusal(`the query is nested too deeply (more than ${MAX_DEPTH} levels)`);
  if (type === 'SelectStmt') return walkSelect(body, ctes, depth);
  if (type === 'RangeVar') return checkRelation(body, ctes);
  const rule = RULES[type];
  if (!rule) throw new Refusal(`${describe(type)} ${type.endsWith('Stmt') ? 'are' : 'is'} not allowed`);
  rule.check?.(body);
  for (const [field, value] of Object.entries(body)) {
    const kind = rule.fields[field];
    if (kind === undefined) throw new Refusal(`unsupported ${type}.${field}`);
    if (value === undefined || kind === 'skip') continue;
    if (kind === 'node') walkNode(value as TaggedNode, ctes, depth + 1);
    else if (kind === 'nodes') walkNodes(value, ctes, depth + 1);
    else walkBody(kind, value as Body, ctes, depth + 1);
  }
}

function checkRelation(body: Body, ctes: ReadonlySet<string>) {
  const name = String(body.relname);
  if (body.schemaname || body.catalogname) {
    throw new Refusal(
      `schema-qualified name ${[body.catalogname, body.schemaname, name].filter(Boolean).join('.')} is not allowed`,
    );
  }
  if (!SEGMENT_RELATIONS.has(name) && !ctes.has(name)) {
    throw new Refusal(`relation "${name}" is not available: a segment query reads only users and events`);
  }
  for (const field of Object.keys(body)) {
    if (!['relname', 'inh', 'relpersistence', 'location', 'alias'].includes(field))
      throw new Refusal(`unsupported RangeVar.${field}`);
  }
  if (body.alias) walkBody('Alias', body.alias as Body, ctes, 0);
}
