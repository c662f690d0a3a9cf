import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** `fail`: the trigger calls' `{status: "fail", message}` (docs/spec/engine.md §1). */
export type ErrorShape = 'full' | 'short' | 'fail';
export type ErrorDetail = string | Record<string, unknown> | null;

const kinds: Record<number, [errorCode: string, type: string]> = {
  400: ['validation_error', 'ValidationError'],
  401: ['authentication_failed', 'AuthenticationFailed'],
  403: ['permission_denied', 'PermissionDenied'],
  404: ['not_found', 'NotFound'],
  405: ['method_not_allowed', 'MethodNotAllowed'],
  408: ['request_timeout', 'RequestTimeout'],
  409: ['conflict', 'Conflict'],
  413: ['payload_too_large', 'PayloadTooLarge'],
  415: ['unsupported_media_type', 'UnsupportedMediaType'],
  429: ['throttled', 'Throttled'],
  500: ['internal_error', 'InternalError'],
  503: ['service_unavailable', 'ServiceUnavailable'],
};

const kindOf = (status: number): [string, string] =>
  kinds[status] ?? (status >= 500 ? ['internal_error', 'InternalError'] : ['bad_request', 'BadRequest']);

/** The one error type routes and repositories throw; the error handler renders it. */
export class HttpError extends Error {
  readonly errorCode: string;
  readonly type: string;

  constructor(
    readonly status: number,
    message: string,
    readonly detail: ErrorDetail = null,
    options: { errorCode?: string; type?: string } = {},
  ) {
    super(message);
    const [errorCode, type] = kindOf(status);
    this.errorCode = options.errorCode ?? errorCode;
    this.type = options.type ?? type;
  }
}

export const badRequest = (message: string, detail: ErrorDetail = null) => new HttpError(400, message, detail);
export const unauthorized = (message = 'authentication failed') => new HttpError(401, message);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string, detail: ErrorDetail = null) => new HttpError(409, message, detail);
export const unavailable = (message = 'service temporarily unavailable') => new HttpError(503, message);

/** A 400 about one field of the request: the message and the detail name it, `at` being a dotted path. */
export const fieldError = (at: string, reason: string) => badRequest(`${at}: ${reason}`, { [at]: reason });

/**
 * Every 404 a route or service raises about a record, worded once. The tenant routes use the hosted
 * platform's wording (its SDKs show it as is); preference reads and writes name the tenant like the
 * other records.
 */
export const notFoundErrors = {
  user: (distinctId: string) => notFound(`user [distinct_id: '${distinctId}'] not found`),
  object: (label: string) => notFound(`object '${label}' not found`),
  tenant: (tenantId: string) => notFound(`No tenant found for tenant_id ${tenantId}`),
  preferenceTenant: (tenantId: string) => notFound(`tenant '${tenantId}' not found`),
  category: (slug: string) => notFound(`category '${slug}' not found`),
  workspace: (slug: string) => notFound(`workspace '${slug}' not found`),
  workflow: (slug: string) => notFound(`workflow '${slug}' not found`),
  execution: (id: string) => notFound(`workflow run '${id}' not found`),
  liveWorkflow: (slug: string) => notFound(`workflow '${slug}' has no live version: it was never committed`),
  apiKey: (id: string) => notFound(`API key '${id}' not found`),
  workspaceKey: (id: string) => notFound(`workspace key '${id}' not found`),
  webhookEndpoint: (id: string) => notFound(`webhook endpoint '${id}' not found`),
  deletedWorkspaceKey: (id: string) => notFound(`workspace key '${id}' has been deleted`),
  translationFile: (filename: string, mode?: 'draft' | 'live') =>
    notFound(`translation file '${filename}' not found${mode === 'live' ? ' in live mode' : ''}`),
};

export interface FullErrorBody {
  code: number;
  error_code: string;
  type: string;
  message: string;
  detail: ErrorDetail;
}

export function errorBody(error: HttpError, shape: ErrorShape) {
  if (shape === 'short') return { code: error.status, message: error.message };
  if (shape === 'fail') return { status: 'fail', message: error.message };
  return {
    code: error.status,
    error_code: error.errorCode,
    type: error.type,
    message: error.message,
    detail: error.detail,
  } satisfies FullErrorBody;
}

interface ValidationIssue {
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Turns Ajv's findings into `{field: reason}`, field written as a dotted path. */
function validationDetail(issues: ValidationIssue[], context: string) {
  const detail: Record<string, string> = {};
  for (const issue of issues) {
    const path = issue.instancePath.split('/').filter(Boolean);
    if (typeof issue.params.missingProperty === 'string') path.push(issue.params.missingProperty);
    if (typeof issue.params.additionalProperty === 'string') path.push(issue.params.additionalProperty);
    const field = path.join('.') || context;
    detail[field] ??= issue.params.additionalProperty
      ? 'is not allowed'
      : issue.params.missingProperty
        ? 'is required'
        : (issue.message ?? 'is invalid');
  }
  return detail;
}

const pgErrors: Record<string, [status: number, message: string]> = {
  '23505': [409, 'a record with the same identifier already exists'],
  '23503': [404, 'a referenced record does not exist'],
  '22P02': [400, 'a value has an invalid format'],
  '22001': [400, 'a value is too long'],
  '22003': [400, 'a number is out of range'],
  '22007': [400, 'a date or time value is invalid'],
  '22008': [400, 'a date or time value is out of range'],
  '54001': [400, 'the request is too complex'],
  '22021': [400, 'a value contains a byte sequence the database cannot store (such as a NUL character)'],
  '22P05': [400, 'a value contains a character the database cannot store (such as \\u0000)'],
};

// 57014: a statement outlived DATABASE_STATEMENT_TIMEOUT_MS. The messages are pg's and kysely's for a
// connection lost mid-request, a pool that could not connect in time, and a query that got no answer.
const unavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
  '08001',
  '08004',
]);
const unavailableMessages =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|is not queryable|connection has been discarded/i;

/** Whether an error says the database is unreachable or out of time (a 503 to a client; a worker waits for it). */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return (
    (typeof e?.code === 'string' && unavailableCodes.has(e.code)) ||
    (typeof e?.message === 'string' && unavailableMessages.test(e.message))
  );
}

/** Maps any thrown value to the HttpError a client may see: Postgres codes are translated here and only here. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const e = error as Partial<FastifyError> & {
    code?: string;
    validation?: ValidationIssue[];
    validationContext?: string;
  };
  if (e.validation) {
    const context = e.validationContext ?? 'body';
    const detail = validationDetail(e.validation, context);
    const [field, reason] = Object.entries(detail)[0] ?? [context, 'is invalid'];
    return new HttpError(400, `${field} ${reason}`, detail);
  }
  if (typeof e.code === 'string' && pgErrors[e.code]) {
    const [status, message] = pgErrors[e.code]!;
    return new HttpError(status, message);
  }
  // Any other data exception (SQLSTATE class 22) is about a value the request sent.
  if (typeof e.code === 'string' && /^22[0-9A-Z]{3}$/.test(e.code))
    return new HttpError(400, 'a value is invalid or out of range');
  if (isDatabaseUnavailable(e)) return unavailable('the database is unavailable; try again shortly');
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new HttpError(e.statusCode, e.message ?? 'bad request');
  }
  // Fastify's own 503s: the handler timeout (REQUEST_TIMEOUT_MS) and the like.
  if (e.statusCode === 503) return unavailable('the request took too long; try again shortly');
  return new HttpError(500, 'internal server error');
}

export const errorShapeOf = (request: FastifyRequest): ErrorShape =>
  (request.routeOptions?.config as { errorShape?: ErrorShape } | undefined)?.errorShape ?? 'full';

export function sendError(request: FastifyRequest, reply: FastifyReply, error: HttpError) {
  if ((error.status === 429 || error.status === 503) && !reply.hasHeader('retry-after'))
    reply.header('retry-after', '1');
  return reply
    .code(error.status)
    .type('application/json')
    .send(errorBody(error, errorShapeOf(request)));
}

export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const httpError = toHttpError(error);
  if (httpError.status >= 500) request.log.error({ err: error }, 'request failed');
  else request.log.info({ status: httpError.status, error_code: httpError.errorCode }, httpError.message);
  return sendError(request, reply, httpError);
}
