import { afterAll, beforeAll, expect } from 'vitest';
import { appendTrace, TRACE_ENV } from './unhandled-errors.js';

/**
 * Runs before every test file, in its worker: writes the file's start and end and, once per
 * process, the worker's exit to the run's trace, which test/support/unhandled-errors.ts reads when
 * vitest reports an error outside any test. It adds no process listener that vitest would take as
 * the error being handled (vitest reports an unhandled error only when its own listener is alone).
 */
const path = process.env[TRACE_ENV];
if (path) {
  beforeAll(() => appendTrace(path, { event: 'start', file: expect.getState().testPath }));
  afterAll(() => appendTrace(path, { event: 'end', file: expect.getState().testPath }));
  const marked = globalThis as { heraldTraceExit?: boolean };
  if (!marked.heraldTraceExit) {
    marked.heraldTraceExit = true;
    process.once('exit', (code) => appendTrace(path, { event: 'exit', code }));
  }
}
