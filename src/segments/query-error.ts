import { HttpError } from '../errors.js';

/** The dry-run's 400: the full error shape with error_code `error` (interface.md, Errors), the reason under `query`. */
export const segmentQueryError = (reason: string) =>
  new HttpError(400, `invalid segment query: ${reason}`, { query: reason }, { errorCode: 'error' });
