import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

/**
 * What a run records when vitest reports an error outside any test ("Unhandled Errors": an
 * unhandled rejection, an uncaught exception, or a worker that died), so that the next one can be
 * explained from CI's output alone (docs/testing.md, "The 'Unhandled Errors' run").
 *
 * Workers write a trace (test/support/worker-trace.ts): each file's start and end, and the worker's
 * exit, with its pid. With `isolate: false` a worker runs many files in one process, and an error
 * raised late by one file lands in a later one, so the trace names the files the worker ran before.
 * `onUnhandledError` (vitest.config.ts) prints each error with its stack, the file and test in
 * progress and that worker at once, to stderr, and appends it to HERALD_UNHANDLED_ERRORS when set
 * (.ci/run prints those again beside its summary). It never filters: the run still fails.
 */

export const TRACE_ENV = 'HERALD_TEST_TRACE';

export interface TraceEvent {
  at: string;
  pid: number;
  pool?: string;
  event: 'start' | 'end' | 'exit';
  file?: string;
  code?: number;
}

/** Called once, in the main process, when the config loads: the workers inherit the variable. */
export function startTrace(): string {
  const path = (process.env[TRACE_ENV] ??= join(tmpdir(), `herald-test-trace-${process.pid}.jsonl`));
  rmSync(path, { force: true });
  process.once('exit', () => rmSync(path, { force: true }));
  return path;
}

export function appendTrace(path: string, event: Omit<TraceEvent, 'at' | 'pid' | 'pool'>) {
  const line: TraceEvent = {
    at: new Date().toISOString(),
    pid: process.pid,
    pool: process.env.VITEST_POOL_ID,
    ...event,
  };
  appendFileSync(path, `${JSON.stringify(line)}\n`);
}

function readTrace(path: string | undefined): TraceEvent[] {
  if (!path || !existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as TraceEvent);
}

interface ReportedError {
  name?: string;
  message?: string;
  stack?: string;
  type?: string;
  VITEST_TEST_PATH?: string;
  VITEST_TEST_NAME?: string;
  cause?: unknown;
}

const shown = (file: string | undefined) => (file ? relative(process.cwd(), file) : '?');

/** Who was doing what when the error arrived: the worker that ran the file, and the workers that were busy or gone. */
export function describeWorkers(trace: TraceEvent[], file: string | undefined): string[] {
  const lines: string[] = [];
  const started = file ? trace.filter((e) => e.event === 'start' && e.file === file).at(-1) : undefined;
  if (started) {
    const before = trace.filter((e) => e.pid === started.pid && e.event === 'start' && e.at <= started.at);
    lines.push(
      `worker: pid ${started.pid} (pool ${started.pool ?? '?'}), its files so far, last one in progress: ` +
        before.map((e) => shown(e.file)).join(', '),
    );
    return lines;
  }
  // No file named (a worker that died, an error from the pool): every worker's state.
  for (const pid of new Set(trace.map((e) => e.pid))) {
    const own = trace.filter((e) => e.pid === pid);
    const last = own.at(-1)!;
    const state =
      last.event === 'exit'
        ? `exited with code ${last.code}`
        : last.event === 'start'
          ? `in ${shown(last.file)} since ${last.at}`
          : `idle after ${shown(last.file)}`;
    lines.push(
      `worker: pid ${pid} (pool ${last.pool ?? '?'}): ${state}; ${own.filter((e) => e.event === 'start').length} files`,
    );
  }
  return lines;
}

export function formatUnhandledError(error: ReportedError, trace: TraceEvent[]): string {
  const lines = [`[unhandled error] ${error.type ?? 'Unhandled Error'}: ${error.name ?? 'Error'}: ${error.message}`];
  lines.push(
    `file in progress: ${shown(error.VITEST_TEST_PATH)}${error.VITEST_TEST_NAME ? ` (last test: ${error.VITEST_TEST_NAME})` : ''}`,
  );
  lines.push(...describeWorkers(trace, error.VITEST_TEST_PATH));
  lines.push(
    'stack:',
    ...String(error.stack ?? '(none)')
      .split('\n')
      .map((line) => `  ${line}`),
  );
  let cause = error.cause as ReportedError | undefined;
  for (let depth = 0; cause && typeof cause === 'object' && depth < 3; depth++) {
    lines.push(`caused by: ${cause.name ?? 'Error'}: ${cause.message}`);
    if (cause.stack)
      lines.push(
        ...String(cause.stack)
          .split('\n')
          .map((line) => `  ${line}`),
      );
    cause = cause.cause as ReportedError | undefined;
  }
  return lines.join('\n');
}

/** vitest's `onUnhandledError`: records, never filters (returning nothing keeps the error failing the run). */
export function recordUnhandledError(error: ReportedError): void {
  try {
    const text = formatUnhandledError(error, readTrace(process.env[TRACE_ENV]));
    process.stderr.write(`\n${text}\n\n`);
    const file = process.env.HERALD_UNHANDLED_ERRORS;
    if (file) appendFileSync(file, `${JSON.stringify({ text })}\n`);
  } catch (failure) {
    // The recording must never be what hides the error: vitest reports it either way.
    process.stderr.write(`[unhandled error] could not record it: ${String(failure)}\n`);
  }
}
