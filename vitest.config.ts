import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { recordUnhandledError, startTrace } from './test/support/unhandled-errors.js';

/**
 * Longest first, so that two workers finish together. Vitest orders by the durations it cached on
 * the last run, or, on a fresh clone, by file size: the fuzz files are a few lines each but the
 * longest to run, and would start last and run alone at the end. They go first either way.
 */
class FuzzFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]) {
    const sorted = await super.sort(files);
    const fuzz = (file: TestSpecification) => /[\\/]test[\\/]fuzz[\\/]/.test(file.moduleId);
    return [...sorted.filter(fuzz), ...sorted.filter((file) => !fuzz(file))];
  }
}

// Workers inherit the trace's path: each file's start and end, and each worker's exit.
startTrace();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/worker-trace.ts'],
    // An error outside any test (docs/testing.md, "The 'Unhandled Errors' run"): printed with its
    // stack, the file and test in progress and the worker, and still failing the run.
    onUnhandledError: recordUnhandledError,
    pool: 'forks',
    // A worker keeps its modules from one file to the next: loading them again for every file was a
    // third of the suite's CPU, and the routes' compiled schemas are reused (docs/testing.md).
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    sequence: { sequencer: FuzzFirst },
    // Embedded: a third worker fills the time the engine tests spend waiting on the queue's polling
    // (two workers kept the two cores about 60% busy). PostgreSQL takes more at once.
    maxWorkers: process.env.DATABASE_URL ? 4 : 3,
  },
});
