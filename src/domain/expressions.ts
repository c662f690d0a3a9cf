import { isDeepStrictEqual } from 'node:util';
import { readPath, type Namespaces } from './paths.js';
import { isObject } from './values.js';

/**
 * `expression_v1` conditions (docs/spec/engine.md §3): `{op: AND|OR, args}`, each arg a comparison
 * `{variable_ns, variable, op, value}` or a nested `{op, args}`. A list of conditions holds when any
 * of them does (the OpenAPI's rule for workflow conditions, applied to branches alike).
 */

export const COMPARISON_OPERATORS = [
  '==',
  '!=',
  '>',
  '>=',
  '<',
  '<=',
  'EMPTY',
  'NON_EMPTY',
  'CONTAINS',
  'NOT_CONTAINS',
  'ARRAY_INTERSECTS',
  'NOT_ARRAY_INTERSECTS',
  'DATETIME_EQUALS',
  'DATETIME_LT',
  'DATETIME_GT',
] as const;
export const VARIABLE_NAMESPACES = ['', '$brand', '$tenant', '$actor', '$recipient', '$workflow'] as const;
const UNARY = new Set(['EMPTY', 'NON_EMPTY']);

/** The right-hand side: JSON when it parses as JSON (`"\"pro\""`, `5`, `true`), else the plain string (ours). */
export function operand(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

const asNumber = (value: unknown): number | undefined => {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
};

const isEmpty = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === '' ||
  (Array.isArray(value) && value.length === 0) ||
  (isObject(value) && Object.keys(value).length === 0);

function compareOrdered(left: unknown, right: unknown): number | undefined {
  const l = asNumber(left);
  const r = asNumber(right);
  if (l !== undefined && r !== undefined && (typeof left === 'number' || typeof right === 'number')) return l - r;
  if (typeof left === 'string' && typeof right === 'string') return left < right ? -1 : left > right ? 1 : 0;
  if (l !== undefined && r !== undefined) return l - r;
  return undefined;
}

function equal(left: unknown, right: unknown) {
  if (isDeepStrictEqual(left, right)) return true;
  const l = asNumber(left);
  const r = asNumber(right);
  return l !== undefined && r !== undefined && (typeof left === 'number' || typeof right === 'number') && l === r;
}

const contains = (left: unknown, right: unknown) => {
  if (typeof left === 'string') return left.includes(typeof right === 'string' ? right : JSON.stringify(right));
  if (Array.isArray(left)) return left.some((item) => equal(item, right));
  return false;
};

const intersects = (left: unknown, right: unknown) => {
  const l = Array.isArray(left) ? left : [left];
  const r = Array.isArray(right) ? right : [right];
  return l.some((a) => r.some((b) => equal(a, b)));
};

const time = (value: unknown) =>
  typeof value === 'string' || typeof value === 'number' ? Date.parse(String(value)) : NaN;

export function compare(op: string, left: unknown, right: unknown): boolean {
  switch (op) {
    case '==':
      return equal(left, right);
    case '!=':
      return !equal(left, right);
    case '>':
    case '>=':
    case '<':
    case '<=': {
      const order = compareOrdered(left, right);
      if (order === undefined) return false;
      return op === '>' ? order > 0 : op === '>=' ? order >= 0 : op === '<' ? order < 0 : order <= 0;
    }
    case 'EMPTY':
      return isEmpty(left);
    case 'NON_EMPTY':
      return !isEmpty(left);
    case 'CONTAINS':
      return contains(left, right);
    case 'NOT_CONTAINS':
      return !contains(left, right);
    case 'ARRAY_INTERSECTS':
      return intersects(left, right);
    case 'NOT_ARRAY_INTERSECTS':
      return !intersects(left, right);
    case 'DATETIME_EQUALS':
    case 'DATETIME_LT':
    case 'DATETIME_GT': {
      const l = time(left);
      const r = time(right);
      if (Number.isNaN(l) || Number.isNaN(r)) return false;
      return op === 'DATETIME_EQUALS' ? l === r : op === 'DATETIME_LT' ? l < r : l > r;
    }
    default:
      return false;
  }
}

function namespaceRoot(namespaces: Namespaces, ns: string): unknown {
  switch (ns) {
    case '':
      return namespaces.data;
    case '$recipient':
      return namespaces.$recipient;
    case '$actor':
      return namespaces.$actor;
    case '$brand':
    case '$tenant':
      return namespaces.$brand;
    case '$workflow':
      return namespaces.$workflow;
    default:
      return undefined;
  }
}

export function evaluateExpression(expression: unknown, namespaces: Namespaces): boolean {
  if (!isObject(expression)) return false;
  if (Array.isArray(expression.args) && (expression.op === 'AND' || expression.op === 'OR')) {
    const results = expression.args.map((arg) => evaluateExpression(arg, namespaces));
    return expression.op === 'AND' ? results.every(Boolean) : results.some(Boolean);
  }
  const variable = typeof expression.variable === 'string' ? expression.variable.replace(/^\./, '') : '';
  const left = readPath(namespaceRoot(namespaces, String(expression.variable_ns ?? '')), variable);
  return compare(String(expression.op), left, operand(expression.value));
}

/** A conditions list: true when empty or when any `expression_v1` holds. */
export function conditionsHold(conditions: unknown, namespaces: Namespaces): boolean {
  if (!Array.isArray(conditions) || conditions.length === 0) return true;
  return conditions.some((condition) => isObject(condition) && evaluateExpression(condition.expression_v1, namespaces));
}

/** Why an expression cannot be evaluated, as messages relative to `at`. */
export function expressionErrors(expression: unknown, at: string): string[] {
  if (!isObject(expression)) return [`${at} must be an object`];
  if (expression.args !== undefined || expression.op === 'AND' || expression.op === 'OR') {
    if (expression.op !== 'AND' && expression.op !== 'OR') return [`${at}.op must be AND or OR`];
    if (!Array.isArray(expression.args)) return [`${at}.args must be an array`];
    return expression.args.flatMap((arg, i) => expressionErrors(arg, `${at}.args[${i}]`));
  }
  const errors: string[] = [];
  if (!(COMPARISON_OPERATORS as readonly string[]).includes(String(expression.op)))
    errors.push(`${at}.op '${String(expression.op)}' is not one of ${COMPARISON_OPERATORS.join(', ')}`);
  if (typeof expression.variable !== 'string' || expression.variable === '')
    errors.push(`${at}.variable must be a non-empty string`);
  if (
    expression.variable_ns !== undefined &&
    !(VARIABLE_NAMESPACES as readonly string[]).includes(String(expression.variable_ns))
  )
    errors.push(`${at}.variable_ns must be one of "${VARIABLE_NAMESPACES.join('", "')}"`);
  if (!UNARY.has(String(expression.op)) && expression.value === undefined) errors.push(`${at}.value is required`);
  return errors;
}

export function conditionsErrors(conditions: unknown, at: string): string[] {
  if (conditions === undefined || conditions === null) return [];
  if (!Array.isArray(conditions)) return [`${at} must be an array`];
  return conditions.flatMap((condition, i) => {
    if (!isObject(condition)) return [`${at}[${i}] must be an object`];
    if (condition.type !== undefined && condition.type !== 'expression_v1')
      return [`${at}[${i}].type must be expression_v1`];
    return expressionErrors(condition.expression_v1, `${at}[${i}].expression_v1`);
  });
}
